package check

import (
	"fmt"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// The stop rule's row is of calls in the order they were sent: an answer
// read late, of a call sent before calls that failed, neither breaks the
// row nor counts in it, and a call still in flight holds the row back
// until it ends.
func TestQuietRow(t *testing.T) {
	closed := silence{quiet: true, silent: true, a: attempt.Attempt{Kind: attempt.KindClosed}}
	timedOut := silence{quiet: true, silent: true, timedOut: true, a: attempt.Attempt{Kind: attempt.KindTimeout}}
	asSent := silence{silent: true}
	answered := silence{answered: true}
	together := func(s silence, n int) silence { s.together = n; return s }
	type ended struct {
		n int // the call's number, in the order begun
		s silence
	}
	for _, tt := range []struct {
		name  string
		begun int
		ends  []ended
		// quiet and silent: the row's counts after the last; stops:
		// whether it stops the run.
		quiet, silent int
		stops         bool
	}{
		{"three closed in a row stop", 3, []ended{{1, closed}, {2, closed}, {3, closed}}, 3, 3, true},
		{"an answer after them begins the row again", 4, []ended{{1, closed}, {2, closed}, {3, answered}, {4, closed}}, 1, 1, false},
		{"an answer read late, of a call sent before them, does not", 4,
			[]ended{{2, closed}, {3, closed}, {1, answered}, {4, closed}}, 3, 3, true},
		{"a call in flight holds the row back", 4, []ended{{2, closed}, {3, closed}, {4, closed}}, 0, 0, false},
		{"until it ends without an answer", 4, []ended{{2, closed}, {3, closed}, {4, closed}, {1, closed}}, 4, 4, true},
		{"or with one, sent before the rest", 4, []ended{{2, closed}, {3, closed}, {4, closed}, {1, answered}}, 3, 3, true},
		{"one sent after them, read before them, breaks it", 4, []ended{{4, answered}, {1, closed}, {2, closed}, {3, closed}}, 0, 0, false},
		{"closed as sent: said, not counted", 4, []ended{{1, closed}, {2, asSent}, {3, closed}, {4, asSent}}, 2, 4, false},
		{"calls sent together count their number on top", 5, []ended{{1, together(closed, 2)}, {2, together(closed, 2)}, {3, closed}, {4, closed}}, 4, 4, false},
		{"and stop past it", 5, []ended{{1, together(closed, 2)}, {2, together(closed, 2)}, {3, closed}, {4, closed}, {5, closed}}, 5, 5, true},
		{"two timeouts stop", 2, []ended{{1, timedOut}, {2, timedOut}}, 2, 2, true},
		{"a call not numbered is taken as begun last", 1, []ended{{0, closed}, {0, closed}, {1, answered}, {0, closed}}, 3, 3, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var q quietRow
			for range tt.begun {
				q.begin()
			}
			for _, e := range tt.ends {
				q.end(e.n, e.s)
			}
			if q.quiet != tt.quiet || q.silent != tt.silent || q.stops() != tt.stops {
				t.Errorf("quiet %d, silent %d, stops %v; want %d, %d, %v", q.quiet, q.silent, q.stops(), tt.quiet, tt.silent, tt.stops)
			}
		})
	}
}

// A call still in flight (held by the receiver) holds the row back only
// where its answer may yet come late and change the verdict: while the
// receiver has answered nothing (a stop would say it never answered) or
// once an answer came late (read after a failure of a call sent after it,
// TestLateAnswersDoNotHideAStop), and only a call sent before the row's
// first failure was read. Otherwise it neither counts nor breaks the
// row, which stops as soon as the calls that ended make it long enough,
// and says how many calls were held. Steps: "b" begins a call, else a
// call ends.
func TestQuietRowHeldCalls(t *testing.T) {
	closed := silence{quiet: true, silent: true, a: attempt.Attempt{Kind: attempt.KindClosed}}
	answered := silence{answered: true}
	type step struct {
		n int // 0: begin a call
		s silence
	}
	b := step{}
	for _, tt := range []struct {
		name              string
		steps             []step
		quiet, held       int
		stops             bool
		heldN, notInCount []int
	}{
		{"a call held from before the row, of a receiver that answered before, is passed",
			[]step{b, {1, answered}, b, b, b, b, {3, closed}, {4, closed}, {5, closed}}, 3, 1, true, []int{2}, nil},
		{"and so is one sent among the row's calls",
			[]step{b, {1, answered}, b, {2, closed}, b, b, b, {4, closed}, {5, closed}}, 3, 1, true, []int{3}, nil},
		{"one held while the receiver answered nothing holds the row back",
			[]step{b, b, b, b, {2, closed}, {3, closed}, {4, closed}}, 0, 0, false, nil, nil},
		{"but not one sent after a call of the row failed",
			[]step{b, {1, closed}, b, b, b, {3, closed}, {4, closed}}, 3, 1, true, []int{2}, nil},
		{"an answer read late makes one sent before the row hold it back",
			[]step{b, b, b, b, {4, closed}, {1, answered}, b, b, {5, closed}, {6, closed}}, 0, 0, false, nil, nil},
		{"a held call answered at last begins the row again after it",
			[]step{b, {1, answered}, b, b, b, {3, closed}, {4, closed}, {2, answered}}, 2, 0, false, nil, nil},
		{"a held call that ends without an answer counts",
			[]step{b, {1, answered}, b, b, b, {3, closed}, {4, closed}, {2, closed}}, 3, 0, true, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var q quietRow
			for _, s := range tt.steps {
				if s.n == 0 {
					q.begin()
					continue
				}
				q.end(s.n, s.s)
			}
			if q.quiet != tt.quiet || q.heldCount() != tt.held || q.stops() != tt.stops {
				t.Errorf("quiet %d, held %d, stops %v; want %d, %d, %v", q.quiet, q.heldCount(), q.stops(), tt.quiet, tt.held, tt.stops)
			}
			if got := q.heldCalls(); len(tt.heldN) > 0 && fmt.Sprint(got) != fmt.Sprint(tt.heldN) {
				t.Errorf("held calls %v, want %v", got, tt.heldN)
			}
		})
	}
}

// A stop's reason names the row's calls by what they got and the held
// ones, in runs of numbers, cut past so many runs.
func TestQuietRowSaysWhichCalls(t *testing.T) {
	closed := silence{quiet: true, silent: true, a: attempt.Attempt{Kind: attempt.KindClosed}}
	timedOut := silence{quiet: true, silent: true, timedOut: true, a: attempt.Attempt{Kind: attempt.KindTimeout}}
	var q quietRow
	q.begin()
	q.end(1, silence{answered: true})
	for range 8 {
		q.begin()
	}
	for _, e := range []struct {
		n int
		s silence
	}{{3, closed}, {4, closed}, {6, timedOut}, {7, closed}, {9, closed}} {
		q.end(e.n, e.s)
	}
	const want = "connection closed: calls 3-4, 7, 9; timeout: calls 6"
	if got, kinds := q.failedCalls(); got != want || kinds != 2 {
		t.Errorf("failed %q of %d kinds, want %q of 2", got, kinds, want)
	}
	if got, want := callRanges(q.heldCalls(), 6), "2, 5, 8"; got != want {
		t.Errorf("held %q, want %q", got, want)
	}
	if got, want := callRanges([]int{1, 3, 5, 7, 8, 9, 11, 13, 15}, 3), "1, 3, 5, and 6 more"; got != want {
		t.Errorf("cut %q, want %q", got, want)
	}
}

// A stop's reason says what the calls got: one kind as before; calls that
// got different things (some closed, some timed out) each by number, as
// with held calls, never all under the last one's kind ("35 calls in a
// row got no answer (connection closed)" of a row with 16 timeouts).
func TestQuietRowReason(t *testing.T) {
	closed := silence{quiet: true, silent: true, a: attempt.Attempt{Kind: attempt.KindClosed}}
	timedOut := silence{quiet: true, silent: true, timedOut: true, a: attempt.Attempt{Kind: attempt.KindTimeout}}
	type ended struct {
		n int
		s silence
	}
	for _, tt := range []struct {
		name string
		ends []ended
		want string
	}{
		{"one kind", []ended{{2, closed}, {3, closed}, {4, closed}}, "3 calls in a row got no answer (connection closed)"},
		{"two kinds", []ended{{2, timedOut}, {3, closed}, {4, closed}},
			"3 calls in a row got no answer (timeout: calls 2; connection closed: calls 3-4, numbered in the order sent)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var q quietRow
			q.begin()
			q.end(1, silence{answered: true})
			for range 3 {
				q.begin()
			}
			for _, e := range tt.ends {
				q.end(e.n, e.s)
			}
			if got := q.reason(); got != tt.want {
				t.Errorf("reason %q, want %q", got, tt.want)
			}
		})
	}
}

// Held calls are said where they were sent, relative to the calls that
// ended: "sent before or among them" was said of calls sent after every
// one of them too (a receiver that holds the calls after those it
// closed), which they were not. Found by ck47.
func TestQuietRowSaysWhereHeldCallsWereSent(t *testing.T) {
	closed := silence{quiet: true, silent: true, a: attempt.Attempt{Kind: attempt.KindClosed}}
	for _, tt := range []struct {
		name  string
		begun int
		ended []int // closed, in this order; 1 was answered
		want  string
	}{
		{"after them", 6, []int{2, 3, 4}, "3 calls in a row got no answer (connection closed: calls 2-4, numbered in the order sent), and 2 sent after them were still in flight without an answer when the run stopped (calls 5-6)"},
		{"among them", 6, []int{2, 4, 5}, "3 calls in a row got no answer (connection closed: calls 2, 4-5, numbered in the order sent), and 2 sent among or after them were still in flight without an answer when the run stopped (calls 3, 6)"},
		{"before them", 5, []int{3, 4, 5}, "3 calls in a row got no answer (connection closed: calls 3-5, numbered in the order sent), and 1 sent before them was still in flight without an answer when the run stopped (call 2)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var q quietRow
			q.begin()
			q.end(1, silence{answered: true})
			for range tt.begun - 1 {
				q.begin()
			}
			for _, n := range tt.ended {
				q.end(n, closed)
			}
			if got := q.reason(); got != tt.want {
				t.Errorf("reason %q\nwant   %q", got, tt.want)
			}
		})
	}
}

// Calls whose bodies were never taken, that differ only in how many
// bytes of them went out, are one kind in a stop's reason: each count
// was a kind of its own ("timeout: the body was never taken: ... (0
// bytes of the call written, ...): calls 2; timeout: ... (65536 bytes
// ...): calls 3").
func TestQuietRowGroupsBodiesNeverTaken(t *testing.T) {
	var q quietRow
	q.begin()
	q.end(1, silence{answered: true})
	for n, wrote := range []int{0, 65536, 2048} {
		q.begin()
		a := attempt.Attempt{Kind: attempt.KindTimeout, Err: fmt.Sprintf(`Post "http://h/hook": %s: the write of the call did not complete within the time limit (%d bytes of the call written, of a 262144-byte body)`, attempt.BodyNotTakenWords, wrote), Silent: &attempt.Silence{Wrote: wrote, Body: 262144}}
		q.end(n+2, silence{quiet: true, silent: true, timedOut: true, a: a})
	}
	const want = "timeout: the body was never taken: the write of the call did not complete within the time limit: calls 2-4"
	if got, kinds := q.failedCalls(); got != want || kinds != 1 {
		t.Errorf("failed %q of %d kinds, want %q of 1", got, kinds, want)
	}
}
