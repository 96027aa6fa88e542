package htmlreport

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/termsafe"
)

// send is the data of a send report.
type send struct {
	// Summary is the {"summary": ...} object of send --output json, its
	// thresholds included.
	Summary json.RawMessage `json:"summary"`
	// Text is the summary as send prints it.
	Text string `json:"text"`
	// Events and Kinds name the indexes the points refer to.
	Events []string `json:"events"`
	Kinds  []string `json:"kinds"`
	// Points are the deliveries plotted: [start ms, latency ms, status,
	// ok 0|1, event index, error kind index or -1], start counted from the
	// first delivery's scheduled start (in the open model; the actual start
	// in the closed one), the latency as the summary counts it.
	Points [][6]float64 `json:"points"`
	// Total is how many deliveries were made; Stride says every Stride-th
	// was plotted when Total outgrew maxPoints.
	Total  int `json:"total"`
	Stride int `json:"stride"`
	// Failures are the first failed deliveries, for the errors table.
	Failures []failure `json:"failures"`
	// Interrupted: Ctrl-C ended the run, which is then no pass, however
	// few calls failed.
	Interrupted bool `json:"interrupted"`
}

// failure is one failed delivery.
type failure struct {
	Seq       int    `json:"seq"`
	Event     string `json:"event"`
	RequestID string `json:"requestId"`
	Status    int    `json:"status,omitempty"`
	// Answer is the start of the answer a failed status came with, as
	// send's line and JUnit show it (termsafe.Excerpt): a status alone
	// does not say which of the receiver's 500s it was.
	Answer string `json:"answer,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Error  string `json:"error,omitempty"`
	// Taken, for a call whose connection ended after it went out, says
	// the call may have been taken (attempt.TakenNote), as send's line
	// and JUnit say after the error, unless the error says it itself.
	Taken     string  `json:"taken,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
	Attempts  int     `json:"attempts"`
}

// maxPoints bounds the points a report plots: past it every other one is
// dropped and the rest sampled at twice the stride, so a long run is
// plotted over its whole length.
const maxPoints = 50000

// maxFailures is how many failed deliveries a report lists.
const maxFailures = 50

type point struct {
	start  time.Time
	lat    time.Duration
	status int
	ok     bool
	ev, k  int
}

// SendRecorder keeps what a send report plots: the console's Observe.
type SendRecorder struct {
	// Now is the clock a delivery is seen finishing at (time.Now if nil).
	Now func() time.Time

	mu       sync.Mutex
	pts      []point
	seen     int
	stride   int
	events   []string
	kinds    []string
	failures []failure
}

// Observe records a finished delivery; many workers call it at once.
func (r *SendRecorder) Observe(res *attempt.Result) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	end := now()
	last := res.Last()
	// The summary's latency: from the scheduled start in the open model,
	// else the final attempt's; the start, what came before the end.
	lat := res.Latency()
	took := res.FromSchedule
	if took == 0 {
		for _, a := range res.Attempts {
			took += a.Latency + a.Wait
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stride == 0 {
		r.stride = 1
	}
	seq := r.seen
	r.seen++
	if !res.OK && len(r.failures) < maxFailures {
		// Terminal-safe, as the run's text and JUnit show them: a
		// requestId is a payload's (send --file reads captures), an
		// error may quote what the receiver sent.
		f := failure{Status: last.Status, Kind: last.Kind, Error: termsafe.Text(cmp.Or(last.Err, last.Unfinished())), LatencyMS: attempt.MS(lat), Attempts: len(res.Attempts)}
		if last.Status != 0 {
			f.Answer = termsafe.Excerpt(last.BodyPrefix, last.BodyCut)
		} else {
			// The row shows the error whole, whose own words may say
			// already that the call may have been taken.
			shown, taken := attempt.TakenWords(last, last.Err)
			f.Error, f.Taken = termsafe.Text(shown), taken
		}
		if q := res.Request; q != nil {
			f.Seq, f.Event, f.RequestID = q.Seq, termsafe.Text(q.Event), termsafe.Text(q.ShownID())
		}
		r.failures = append(r.failures, f)
	}
	if seq%r.stride != 0 {
		return
	}
	p := point{start: end.Add(-took), lat: lat, status: last.Status, ok: res.OK, ev: -1, k: -1}
	if q := res.Request; q != nil {
		p.ev = index(&r.events, q.Event)
	}
	if last.Kind != "" {
		p.k = index(&r.kinds, last.Kind)
	}
	r.pts = append(r.pts, p)
	if len(r.pts) >= maxPoints {
		kept := r.pts[:0]
		for i, p := range r.pts {
			if i%2 == 0 {
				kept = append(kept, p)
			}
		}
		r.pts = kept
		r.stride *= 2
	}
}

func index(list *[]string, s string) int {
	if i := slices.Index(*list, s); i >= 0 {
		return i
	}
	*list = append(*list, s)
	return len(*list) - 1
}

// NewSend builds a send report from the recorder and the run's summary as
// JSON and text.
func NewSend(r *SendRecorder, summaryJSON []byte, text string) *send {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &send{Text: text, Events: slices.Clone(r.events), Kinds: slices.Clone(r.kinds), Total: r.seen,
		Stride: max(r.stride, 1), Failures: slices.Clone(r.failures), Points: make([][6]float64, 0, len(r.pts))}
	if json.Valid(summaryJSON) {
		s.Summary = json.RawMessage(summaryJSON)
	}
	pts := slices.Clone(r.pts)
	slices.SortStableFunc(pts, func(a, b point) int { return a.start.Compare(b.start) })
	var t0 time.Time
	if len(pts) > 0 {
		t0 = pts[0].start
	}
	for _, p := range pts {
		ok := 0.0
		if p.ok {
			ok = 1
		}
		s.Points = append(s.Points, [6]float64{
			attempt.MS(p.start.Sub(t0)), attempt.MS(p.lat), float64(p.status), ok, float64(p.ev), float64(p.k),
		})
	}
	return s
}
