package term

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/termsafe"
)

// progressAt is where a check run is.
type progressAt struct {
	Check       string
	Done, Total int
	Case        string
}

// checkProgress is the line on a terminal's stderr that says where a run is,
// redrawn as cases are graded and every half second between (a long load
// check or a slow receiver would otherwise look stuck).
type checkProgress struct {
	w    io.Writer
	mu   sync.Mutex
	last progressAt
	on   bool // a line is drawn
	done chan struct{}
	t0   time.Time
}

// NewCheckProgress returns the progress line of a check run on w; none
// (nil, whose methods do nothing) unless w is a terminal.
func NewCheckProgress(w io.Writer, tty bool) *checkProgress {
	if !tty {
		return nil
	}
	p := &checkProgress{w: w, done: make(chan struct{}), t0: time.Now()}
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Update says the run is at case done of total (caseName) of check name.
func (p *checkProgress) Update(name string, done, total int, caseName string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = progressAt{name, done, total, caseName}
	p.draw()
}

// draw writes the line; the caller holds mu.
func (p *checkProgress) draw() {
	pr := p.last
	el := time.Since(p.t0).Round(time.Second)
	if pr.Total == 0 {
		fmt.Fprintf(p.w, "\r\x1b[K%s starting", el)
	} else {
		fmt.Fprintf(p.w, "\r\x1b[K%s case %d of %d (%s), %s", pr.Check, pr.Done, pr.Total, termsafe.Text(pr.Case), el)
	}
	p.on = true
}

// Clear removes the line before a case's own line is printed.
func (p *checkProgress) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.on = false
	}
}

// Stop ends the line.
func (p *checkProgress) Stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.Clear()
}
