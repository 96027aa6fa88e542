package check

import "github.com/whsim/whsim/internal/attempt"

// quietRow counts the calls in a row that got no answer, in the order
// they were sent, not in the order their outcomes were read: on a loaded
// machine the answer of a call sent before others is read after theirs
// failed, and it says nothing of them. Counted in the order read, each
// such late answer began the row again, so that a receiver that answered
// 12 calls and then closed every connection was never found stopped, or
// found never to have answered at all. Calls are numbered as they begin
// (begin); the row is of the calls after the last one answered, up to the
// first one still in flight (one sent before the rest of the row may yet
// be answered: the row waits for it, which costs at most the time limit
// when the receiver holds it and refuses the calls after it).
type quietRow struct {
	begun int // the number of the last call begun, from 1
	floor int // the last call, by number, that got an answer
	front int // every call from floor+1 to front ended with none
	// ended are the calls past front that ended: the row reaches them
	// once every call before them has ended.
	ended map[int]silence
	// The row's calls (floor+1 to front): those without an answer that
	// count towards a stop, of them timeouts, those without an answer
	// whatever they count (said by a stop), and the most of them sent
	// together.
	quiet, timedOut, silent, together int
	// last is the row's last call that counts towards a stop: what a stop
	// says the calls got.
	last attempt.Attempt
}

// silence is how one call ended, for the row.
type silence struct {
	// answered: the receiver answered it (if with bytes no valid HTTP
	// answer: it has not stopped answering).
	answered bool
	// quiet: no answer, counted towards a stop; timedOut: so, after the
	// whole time limit; silent: no answer, counted or not (a kept-alive
	// connection closed as the call went out is no sign the receiver is
	// gone, but its call got no answer).
	quiet, timedOut, silent bool
	// together: calls sent at once with it.
	together int
	// a is its attempt.
	a attempt.Attempt
}

// begin numbers a call that is about to be sent.
func (q *quietRow) begin() int {
	q.begun++
	return q.begun
}

// end takes the outcome of call n (begun by begin; 0: a call not
// numbered, taken as begun now).
func (q *quietRow) end(n int, s silence) {
	if n == 0 {
		n = q.begin()
	}
	if n <= q.floor {
		return // sent before a call that was answered: not in the row
	}
	if q.ended == nil {
		q.ended = map[int]silence{}
	}
	q.ended[n] = s
	for {
		s, ok := q.ended[q.front+1]
		if !ok {
			return
		}
		delete(q.ended, q.front+1)
		q.front++
		if s.answered {
			q.floor = q.front
			q.quiet, q.timedOut, q.silent, q.together = 0, 0, 0, 0
			continue
		}
		q.together = max(q.together, s.together)
		if s.silent {
			q.silent++
		}
		if s.timedOut {
			q.timedOut++
		}
		if s.quiet {
			q.quiet++
			q.last = s.a
		}
	}
}

// stops says whether the row is long enough to stop a run: quietToStop
// calls in a row without an answer, or timeoutsToStop timeouts, each with
// the number of calls sent together on top (all of them may fail at
// once).
func (q *quietRow) stops() bool {
	return q.quiet > 0 && (q.quiet >= quietToStop+q.together || q.timedOut >= timeoutsToStop+q.together)
}
