package sendout

import (
	"fmt"
	"sync"

	"github.com/whsim/whsim/internal/attempt"
)

// silences tallies what passed on the connections of the deliveries
// that timed out without an answer (attempt.Silence): the run's last line
// says it of every call in one group, with the range of the counts that
// differ from call to call (each call's line and JSON give its own).
type silences struct {
	mu sync.Mutex
	// n counts the timeouts; measured those with a Silence, whole and
	// cut those written whole or not, answered those with bytes of an
	// answer.
	n, measured, whole, cut, answered int
	wrote, body, read                 span
	waited                            string
}

// span is the least and the most of a count.
type span struct {
	lo, hi int
	seen   bool
}

func (s *span) add(n int) {
	if !s.seen || n < s.lo {
		s.lo = n
	}
	if !s.seen || n > s.hi {
		s.hi = n
	}
	s.seen = true
}

// String is "1,634" or "1,634-1,875".
func (s span) String() string {
	if s.lo == s.hi {
		return attempt.Thousands(s.lo)
	}
	return attempt.Thousands(s.lo) + "-" + attempt.Thousands(s.hi)
}

// note counts a's delivery, which got no answer.
func (t *silences) note(a attempt.Attempt) {
	if a.Kind != attempt.KindTimeout {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	s := a.Silent
	if s == nil {
		return
	}
	t.measured++
	if s.Whole {
		t.whole++
	} else {
		t.cut++
	}
	if s.Read > 0 {
		t.answered++
		t.read.add(s.Read)
	}
	t.wrote.add(s.Wrote)
	t.body.add(s.Body)
	if t.waited == "" {
		t.waited = s.Waited.String()
	}
}

// words say what passed on every call that timed out, when each was
// measured: "" otherwise.
func (t *silences) words() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.n == 0 || t.measured < t.n:
		return ""
	case t.cut == t.n:
		body := "a " + t.body.String() + "-byte body"
		if t.body.lo != t.body.hi {
			body = "bodies of " + t.body.String() + " bytes"
		}
		return fmt.Sprintf("%s: the write of the call did not complete within the time limit (%s): %s bytes of each call written, of %s",
			attempt.BodyNotTakenWords, t.waited, t.wrote, body)
	case t.whole < t.n:
		// Two groups: each call's line says its own.
		return fmt.Sprintf("%d of the %d calls %s written whole and got no whole answer, %d %s not (%s); each call's line says what went out and what came",
			t.whole, t.n, was(t.whole), t.cut, was(t.cut), attempt.BodyNotTakenWords)
	}
	w := fmt.Sprintf("each call was written whole (%s bytes; whether the receiver read them is not known)", t.wrote)
	switch {
	case t.answered == 0:
		return w + " and no byte of an answer came within the time limit (" + t.waited + ")"
	case t.answered == t.n:
		return fmt.Sprintf("%s and no whole answer came within the time limit (%s): %s bytes of an answer came on each, not its whole head", w, t.waited, t.read)
	}
	return fmt.Sprintf("%s and no whole answer came within the time limit (%s): %s bytes of an answer came on %d of the %d calls, not its whole head, and no byte on the rest", w, t.waited, t.read, t.answered, t.n)
}

// was is the verb for n calls: "was" for one, else "were".
func was(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
