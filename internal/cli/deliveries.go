package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/report"
	"github.com/whsim/whsim/internal/termsafe"
)

// deliveryFlags are what send and replay share: how to reach the receiver
// and how to report.
type deliveryFlags struct {
	URL             string
	Timeout         time.Duration
	Retries         int
	Insecure        bool
	CACert          string
	FollowRedirects bool
	Concurrency     int
	MaxConcurrency  int
	Rate            float64
	ExpectStatus    string
	Output          string
	Verbose         bool
	Each            bool
}

// deliveryReporter reports deliveries as they finish (from many workers at
// once) through the run's report, and tells on stderr of retries and
// warnings, with a progress bar on a terminal.
type deliveryReporter struct {
	rep   report.Reporter
	title string
	// quiet reports only failures: text on a terminal, without --each or
	// -v, where a line per delivery would scroll past by the thousand.
	quiet  bool
	outTTY bool
	// note is said under the summary's counts (send's --count per event).
	note string
	done atomic.Int64
	// failures counts failed deliveries for the progress bar; firstErr is
	// the first transport error, for the one line of a receiver that
	// cannot be reached.
	failures atomic.Int64
	firstErr atomic.Pointer[deliver.Attempt]

	mu      sync.Mutex // stderr
	err     io.Writer
	pal     Palette
	stopBar chan struct{}
	barDone chan struct{}
}

func newDeliveryReporter(a *app, title string, d *deliveryFlags) (*deliveryReporter, error) {
	rep, err := report.New(d.Output, a.streams.Out, style(a.outColor(), d.Verbose), a.streams.OutTTY)
	if err != nil {
		return nil, usagef("--output: %v", err)
	}
	quiet := d.Output == report.Text && a.streams.OutTTY && !d.Each && !d.Verbose
	return &deliveryReporter{rep: rep, title: title, quiet: quiet, outTTY: a.streams.OutTTY, err: a.streams.Err, pal: a.errColor}, nil
}

func (r *deliveryReporter) report(res *deliver.Result) {
	switch {
	case r.quiet && res.OK:
		// Counted by the bar and the summary, not listed.
	case r.outTTY && r.stopBar != nil:
		// Stdout and the bar share the terminal: the line goes above it.
		r.mu.Lock()
		r.clearBar()
		_ = r.rep.Case((*deliver.Case)(res))
		r.mu.Unlock()
	default:
		_ = r.rep.Case((*deliver.Case)(res))
	}
	r.done.Add(1)
	if !res.OK {
		r.failures.Add(1)
		if last := res.Last(); last.Status == 0 && r.firstErr.Load() == nil {
			r.firstErr.CompareAndSwap(nil, &last)
		}
	}
}

// retry tells, on stderr, of an attempt that will be tried again.
func (r *deliveryReporter) retry(req *deliver.Request, n int, a deliver.Attempt) {
	what := strconv.Itoa(a.Status)
	if a.Status == 0 {
		what = deliver.FailureText(a)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearBar()
	fmt.Fprintf(r.err, "%s %s %s attempt %d: %s, retrying in %s\n", r.pal.Warn.Sprint("retry"),
		termsafe.Text(req.Event), termsafe.Text(req.RequestID), n, termsafe.Text(what), a.Wait.Round(time.Millisecond))
}

func (r *deliveryReporter) warn(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.err, "%s %s\n", r.pal.Warn.Sprint("warning:"), termsafe.Text(fmt.Sprintf(format, args...)))
}

func (r *deliveryReporter) clearBar() {
	if r.stopBar != nil {
		fmt.Fprint(r.err, "\r\033[K")
	}
}

// startBar draws a progress bar on stderr (a terminal) until stopped.
func (r *deliveryReporter) startBar(total int, duration time.Duration) {
	r.stopBar, r.barDone = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(r.barDone)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-r.stopBar:
				r.mu.Lock()
				fmt.Fprint(r.err, "\r\033[K")
				r.mu.Unlock()
				return
			case <-t.C:
			}
			line := progressLine(r.done.Load(), r.failures.Load(), int64(total), time.Since(start), duration)
			r.mu.Lock()
			fmt.Fprint(r.err, "\r\033[K"+line)
			r.mu.Unlock()
		}
	}()
}

// progressLine is the bar: done of total (or of --duration's time), the
// rate, the time left and the failures so far. Without a total or a
// duration there is no end to measure against: the count and the rate.
func progressLine(done, failed, total int64, el, duration time.Duration) string {
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	var b strings.Builder
	frac, left := -1.0, time.Duration(-1)
	switch {
	case total > 0:
		frac = float64(done) / float64(total)
		if rate > 0 {
			left = time.Duration(float64(total-done) / rate * float64(time.Second))
		}
	case duration > 0:
		frac, left = el.Seconds()/duration.Seconds(), duration-el
	}
	if frac >= 0 {
		const width = 28
		frac = min(frac, 1)
		fill := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] ")
	}
	if total > 0 {
		fmt.Fprintf(&b, "%*d/%d %3.0f%%", len(strconv.FormatInt(total, 10)), done, total, frac*100)
	} else {
		fmt.Fprintf(&b, "%d sent", done)
		if frac >= 0 {
			fmt.Fprintf(&b, "  %.0f%%", frac*100)
		}
	}
	fmt.Fprintf(&b, "  %.0f/s", rate)
	switch {
	case frac >= 0 && left >= 0:
		fmt.Fprintf(&b, "  ETA %s", max(left, 0).Round(time.Second))
	case frac >= 0:
		b.WriteString("  ETA --")
	}
	if failed > 0 {
		fmt.Fprintf(&b, "  %d failed", failed)
	}
	return b.String()
}

func (r *deliveryReporter) stop() {
	if r.stopBar != nil {
		close(r.stopBar)
		<-r.barDone
		r.stopBar = nil
	}
}

func (r *deliveryReporter) summary(st *deliver.Stats) error {
	r.stop()
	return r.rep.Finish(deliver.Summary{Stats: st, Name: r.title, Note: r.note})
}
