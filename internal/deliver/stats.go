package deliver

import (
	"maps"
	"math/bits"
	"slices"
	"time"
)

// Histogram counts latencies in log-linear buckets (64 per power of two,
// under 1.6% relative error) so that its size is fixed however many
// requests a run makes.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	max    time.Duration
}

const (
	histSub     = 64 // linear sub-buckets per power of two
	histSubBits = 6
	histBuckets = histSub + (64-histSubBits)*histSub
)

func histIndex(us uint64) int {
	if us < histSub {
		return int(us)
	}
	exp := bits.Len64(us) - histSubBits - 1
	return histSub + exp*histSub + int(us>>uint(exp)) - histSub
}

// histValue is the upper bound, in microseconds, of bucket i.
func histValue(i int) uint64 {
	if i < histSub {
		return uint64(i)
	}
	exp := (i - histSub) / histSub
	sub := uint64((i-histSub)%histSub) + histSub
	return (sub+1)<<uint(exp) - 1
}

// Record adds one latency.
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[histIndex(uint64(d/time.Microsecond))]++
	h.n++
	h.max = max(h.max, d)
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// Count is the number of latencies recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Max is the largest latency recorded, exactly.
func (h *Histogram) Max() time.Duration { return h.max }

// Quantile returns the latency at or below which a share q of the
// recordings fall (q in [0,1]), never more than Max.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(histValue(i))*time.Microsecond, h.max)
		}
	}
	return h.max
}

// Stats account for every delivery of a run. One goroutine owns a Stats;
// runners give each worker its own and merge them.
type Stats struct {
	Sent        int            // deliveries made (duplicates included)
	Succeeded   int            // got an expected status
	Failed      int            // did not
	Interrupted int            // cut short by Ctrl-C
	Duplicates  int            // deliberate re-deliveries sent
	Retries     int            // attempts beyond the first
	ByStatus    map[int]int    // final status of failed deliveries that got an answer
	ByError     map[string]int // error kind of failed deliveries that got none
	Latency     Histogram      // of the final attempt of each answered delivery
	Elapsed     time.Duration  // wall time of the run
}

// NewStats returns empty stats.
func NewStats() *Stats {
	return &Stats{ByStatus: map[int]int{}, ByError: map[string]int{}}
}

// Add accounts for one delivery's result.
func (s *Stats) Add(r *Result) {
	s.Sent++
	if r.Request != nil && r.Request.Duplicate {
		s.Duplicates++
	}
	if len(r.Attempts) > 1 {
		s.Retries += len(r.Attempts) - 1
	}
	last := r.Last()
	if last.Status != 0 {
		s.Latency.Record(last.Latency)
	}
	switch {
	case r.OK:
		s.Succeeded++
	case last.Kind == KindInterrupted:
		s.Interrupted++
	case last.Status != 0:
		s.Failed++
		s.ByStatus[last.Status]++
	default:
		s.Failed++
		s.ByError[last.Kind]++
	}
}

// Merge adds o to s.
func (s *Stats) Merge(o *Stats) {
	s.Sent += o.Sent
	s.Succeeded += o.Succeeded
	s.Failed += o.Failed
	s.Interrupted += o.Interrupted
	s.Duplicates += o.Duplicates
	s.Retries += o.Retries
	for k, v := range o.ByStatus {
		s.ByStatus[k] += v
	}
	for k, v := range o.ByError {
		s.ByError[k] += v
	}
	s.Latency.Merge(&o.Latency)
}

// RequestsPerSecond is deliveries per second of wall time.
func (s *Stats) RequestsPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Sent) / s.Elapsed.Seconds()
}

// StatusCodes lists the failed statuses in ascending order.
func (s *Stats) StatusCodes() []int { return slices.Sorted(maps.Keys(s.ByStatus)) }

// ErrorKinds lists the error kinds in ascending order.
func (s *Stats) ErrorKinds() []string { return slices.Sorted(maps.Keys(s.ByError)) }
