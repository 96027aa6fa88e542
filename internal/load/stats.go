package load

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/threshold"
)

// Histogram holds latencies in an HDR histogram: every value to 3
// significant digits from 1µs to an hour, in a size fixed however many
// requests a run makes, and in a format (HdrHistogram's compressed V2)
// that other runs and other tools can decode and merge. The zero value is
// empty and ready to use.
type Histogram struct {
	h *hdrhistogram.Histogram
	// max is the largest latency recorded, to the microsecond, as each
	// delivery's latencyMs says it: the histogram reads a value back as
	// the top of its bucket, up to 0.1% over any latency recorded (max
	// 28278.783 ms of calls none longer than 28269.195 ms, which failed
	// --threshold 'max<28270ms').
	max time.Duration
}

const (
	histLowest  = 1 // µs
	histHighest = int64(time.Hour / time.Microsecond)
	histDigits  = 3
)

func (h *Histogram) init() {
	if h.h == nil {
		h.h = hdrhistogram.New(histLowest, histHighest, histDigits)
	}
}

// Record adds one latency; one longer than an hour counts as an hour.
func (h *Histogram) Record(d time.Duration) {
	h.init()
	us := min(max(int64(d/time.Microsecond), 0), histHighest)
	_ = h.h.RecordValue(us) // in range by construction
	h.max = max(h.max, time.Duration(us)*time.Microsecond)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.h == nil {
		return
	}
	h.init()
	h.h.Merge(o.h)
	h.max = max(h.max, o.max)
}

// Count is the number of latencies recorded.
func (h *Histogram) Count() uint64 {
	if h.h == nil {
		return 0
	}
	return uint64(h.h.TotalCount())
}

// Max is the largest latency recorded, to the microsecond (of one
// decoded, to 3 significant digits).
func (h *Histogram) Max() time.Duration {
	if h.Count() == 0 {
		return 0
	}
	return h.max
}

// Quantile returns the latency at or below which a share q of the
// recordings fall (q in [0,1]), to 3 significant digits and never over
// Max.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.Count() == 0 {
		return 0
	}
	return min(time.Duration(h.h.ValueAtQuantile(q*100))*time.Microsecond, h.max)
}

// Encode returns the histogram in HdrHistogram's compressed V2 encoding
// (base64, "HISTF..."), values in microseconds: what HdrHistogram's tools
// and libraries in other languages read.
func (h *Histogram) Encode() (string, error) {
	h.init()
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(b), err
}

// decodeHistogram reads what Encode wrote (or any HdrHistogram V2
// compressed histogram of microseconds).
func decodeHistogram(s string) (*Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	// The encoding keeps no exact max: the top of its bucket.
	return &Histogram{h: h, max: time.Duration(h.Max()) * time.Microsecond}, nil
}

// Stats account for every delivery of a run. One goroutine owns a Stats;
// runners give each worker its own and merge them.
type Stats struct {
	Sent        int // deliveries started (duplicates included)
	Succeeded   int // got an expected status
	Failed      int // did not
	Interrupted int // started and ended by Ctrl-C before its final answer
	NotStarted  int // never started: the run was interrupted or its --duration ended first
	// HeldBack are those of NotStarted that were due before --duration
	// ended (an open run's schedule) and never started: --max-concurrency
	// was reached and held them past the end.
	HeldBack   int
	Duplicates int // deliberate re-deliveries sent
	Documents  int // distinct documents sent (Request.Document)
	// NoDocument counts the deliveries, re-deliveries aside, whose body
	// named no document (Request.NoDocument): no document of Documents.
	NoDocument int
	Retries    int            // attempts beyond the first
	ByStatus   map[int]int    // final status of failed deliveries that got an answer
	ByError    map[string]int // error kind of failed deliveries that got none
	// RetryNotMade counts the Interrupted deliveries Ctrl-C stopped in
	// the backoff: their attempt was over (answered, or failed without an
	// answer) and the retry it waited for was never made. They were not
	// cut short in a call: a receiver that answered 429 with Retry-After
	// did answer. RetryNotMadeByStatus is those answered, by the status.
	RetryNotMade         int
	RetryNotMadeByStatus map[int]int
	// NotStartedUncounted says the run stopped before the end of an input
	// it could not read again to count (stdin): what that still held was
	// not started either, and is not in NotStarted.
	NotStartedUncounted bool
	// ClosedAsSent counts the failed deliveries (in ByError too) whose
	// last attempt went out on a kept-alive connection the receiver
	// closed as it arrived, with no answer: a race with its idle timeout
	// (it never read the call) or a handler that died on the call (it
	// did); either way the call may have been taken. ResentAfterClose
	// counts the retries that followed such an attempt: the receiver may
	// have taken those calls twice.
	ClosedAsSent, ResentAfterClose int
	// Unasked counts the kept-alive connections found holding bytes no
	// call asked for after an answer (attempt.Deliverer.Unasked): an
	// answer read on one, counted by its status like any, may have been
	// another call's.
	Unasked int
	// Latency is, in the closed model, that of the final attempt of each
	// answered delivery (not one Ctrl-C cut short, even once its status
	// came); in the open model, from each delivery's scheduled start
	// to the end of its final attempt, so a call that had to wait for a
	// stalled receiver counts its wait (no coordinated omission).
	Latency Histogram
	Elapsed time.Duration // wall time of the run

	Open bool    // the open model ran; else the closed loop of workers
	Rate float64 // the open model's deliveries per second
	// The bound on deliveries in flight, the most that were (in the
	// closed model both are its workers), and how many deliveries started
	// late because all MaxConcurrency were busy (open model): those whose
	// Result.Late is set, counted by Add.
	MaxConcurrency, PeakConcurrency, Late int
}

// NewStats returns empty stats.
func NewStats() *Stats {
	return &Stats{ByStatus: map[int]int{}, ByError: map[string]int{}, RetryNotMadeByStatus: map[int]int{}}
}

// Add accounts for one delivery's result.
func (s *Stats) Add(r *attempt.Result) {
	s.Sent++
	if r.Request != nil && r.Request.Duplicate {
		s.Duplicates++
	}
	if r.Request != nil && r.Request.Document {
		s.Documents++
	}
	if r.Request != nil && r.Request.NoDocument && !r.Request.Duplicate {
		s.NoDocument++
	}
	if r.Late > 0 {
		s.Late++
	}
	if n := r.Tries(); n > 1 {
		s.Retries += n - 1
		for _, a := range r.Attempts[:n-1] {
			if a.ClosedAsSent {
				s.ResentAfterClose++
			}
		}
	}
	last := r.Last()
	if last.Status != 0 && last.Kind != attempt.KindInterrupted {
		// An answer Ctrl-C cut short took Ctrl-C's time, not the
		// receiver's: no latency, as for a call cut before its answer.
		s.Latency.Record(r.Latency())
	}
	switch {
	case r.OK:
		s.Succeeded++
	case last.Kind == attempt.KindInterrupted:
		s.Interrupted++
		if last.Unsent && len(r.Attempts) > 1 {
			s.RetryNotMade++
			if before := r.Attempts[len(r.Attempts)-2]; before.Status != 0 {
				s.RetryNotMadeByStatus[before.Status]++
			}
		}
	case last.Unfinished() != "":
		// Not the status's fault: counted by what cut the answer.
		s.Failed++
		why := last.Unfinished()
		if last.BodyUnsent != "" {
			why = attempt.BodyUnsentWords // one kind, whatever the counts
		}
		s.ByError[why]++
	case last.Status != 0:
		s.Failed++
		s.ByStatus[last.Status]++
	default:
		s.Failed++
		s.ByError[last.Kind]++
		if last.ClosedAsSent {
			s.ClosedAsSent++
		}
	}
}

// StdinUncounted names what a run stopped early left unread on stdin,
// which NotStarted cannot count: every summary that says "not started"
// says it in these words.
const StdinUncounted = "what stdin still held (not counted: it is read once)"

// NotStartedWords says what the run did not start, for a line going on
// after what it sent: "N not started", with what stdin still held when
// that could not be counted; "" when nothing.
func (s *Stats) NotStartedWords() string {
	switch {
	case s.NotStartedUncounted && s.NotStarted > 0:
		return fmt.Sprintf("%d not started, and %s", s.NotStarted, StdinUncounted)
	case s.NotStartedUncounted:
		return "what stdin still held not started (not counted: it is read once)"
	case s.NotStarted > 0:
		return fmt.Sprintf("%d not started", s.NotStarted)
	}
	return ""
}

// Merge adds o to s.
func (s *Stats) Merge(o *Stats) {
	s.Sent += o.Sent
	s.Succeeded += o.Succeeded
	s.Failed += o.Failed
	s.Interrupted += o.Interrupted
	s.RetryNotMade += o.RetryNotMade
	for k, v := range o.RetryNotMadeByStatus {
		if s.RetryNotMadeByStatus == nil {
			s.RetryNotMadeByStatus = map[int]int{}
		}
		s.RetryNotMadeByStatus[k] += v
	}
	s.NotStarted += o.NotStarted
	s.HeldBack += o.HeldBack
	s.NotStartedUncounted = s.NotStartedUncounted || o.NotStartedUncounted
	s.Duplicates += o.Duplicates
	s.Documents += o.Documents
	s.NoDocument += o.NoDocument
	s.Retries += o.Retries
	s.ClosedAsSent += o.ClosedAsSent
	s.ResentAfterClose += o.ResentAfterClose
	s.Unasked += o.Unasked
	s.Late += o.Late
	for k, v := range o.ByStatus {
		s.ByStatus[k] += v
	}
	for k, v := range o.ByError {
		s.ByError[k] += v
	}
	s.Latency.Merge(&o.Latency)
}

// RequestsPerSecond is answered deliveries per second of wall time, as
// the text summary says it: a refused connection fails at once, and a
// rate over such calls would measure how fast the client gives up, not
// the receiver (0 when no call was answered).
func (s *Stats) RequestsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Latency.Count()) / s.Elapsed.Seconds()
}

// StatusCodes lists the failed statuses in ascending order.
func (s *Stats) StatusCodes() []int { return slices.Sorted(maps.Keys(s.ByStatus)) }

// ErrorKinds lists the error kinds in ascending order.
func (s *Stats) ErrorKinds() []string { return slices.Sorted(maps.Keys(s.ByError)) }

// Measured is the run's value of every metric a threshold may name, as the
// summary gives it (latencies in milliseconds). With no call answered there
// is no latency and no rate ("no rate" in the summary): they are left out,
// and a threshold on them fails as not measured, never holds on a 0.
func (s *Stats) Measured() threshold.Measured {
	h := &s.Latency
	m := threshold.Measured{
		threshold.Sent: float64(s.Sent), "succeeded": float64(s.Succeeded), "failed": float64(s.Failed),
		"interrupted": float64(s.Interrupted), "duplicates": float64(s.Duplicates), "retries": float64(s.Retries),
		"late": float64(s.Late),
	}
	if h.Count() > 0 {
		m["rps"] = s.RequestsPerSecond()
		m["p50"], m["p90"], m["p99"] = attempt.MS(h.Quantile(.5)), attempt.MS(h.Quantile(.9)), attempt.MS(h.Quantile(.99))
		m["p99.9"], m["max"] = attempt.MS(h.Quantile(.999)), attempt.MS(h.Max())
	}
	return m
}
