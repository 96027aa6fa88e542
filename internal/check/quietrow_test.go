package check

import (
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
