package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// quietRow counts the calls in a row that got no answer, in the order
// they were sent, not in the order their outcomes were read: on a loaded
// machine the answer of a call sent before others is read after theirs
// failed, and it says nothing of them. Counted in the order read, each
// such late answer began the row again, so that a receiver that answered
// 12 calls and then closed every connection was never found stopped, or
// found never to have answered at all. Calls are numbered as they begin
// (begin); the row is of the calls after the last one answered.
//
// A call still in flight (one the receiver holds) holds the row back only
// where its answer may yet come and change what a stop says: one sent
// before any failure of the row was read, and before the last answer was
// read (the receiver was answering as it went out), or at all while the
// receiver has answered nothing (a stop would say it never answered) or
// once an answer came late (read after a failure of a call sent after
// it: TestLateAnswersDoNotHideAStop). Otherwise it is passed: it neither
// counts nor breaks the row, which stops as soon as the calls that ended
// make it long enough, and says which calls it held (a receiver that
// holds some calls forever and closes the others was stopped only at the
// time limit). A held call answered later begins the row again after it,
// as any answer does; one that ends without an answer counts.
type quietRow struct {
	begun int // the number of the last call begun, from 1
	floor int // the last call, by number, that got an answer
	front int // every call from floor+1 to front ended with none, or is held
	// ended are the calls past front that ended: the row reaches them
	// once every call before them has ended or is held.
	ended map[int]silence
	// calls are the row's, floor+1 to front, in the order sent.
	calls []rowCall
	// seen is the number of calls begun when the first failure of the
	// row was read (0: none was): a call begun after it was sent to a
	// receiver already failing.
	seen int
	// answeredAny: some call was answered; late: an answer came late,
	// read after a failure of a call sent after it; lastFailed is the
	// last call, by number, read without an answer; answeredAt the
	// number of calls begun when the last answer was read.
	answeredAny, late      bool
	lastFailed, answeredAt int
	// The row's calls that ended: those without an answer that count
	// towards a stop, of them timeouts, those without an answer whatever
	// they count (said by a stop), and the most of them sent together.
	quiet, timedOut, silent, together int
	// last is the row's last call that counts towards a stop: what a stop
	// says the calls got.
	last attempt.Attempt
}

// rowCall is one call of the row: ended without an answer, or held.
type rowCall struct {
	n    int
	s    silence
	held bool
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
	// after is the number of calls begun when its outcome was read.
	after int
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
	s.after = q.begun
	wasLate := q.late
	if s.answered {
		q.late = q.late || n < q.lastFailed
		q.answeredAny, q.answeredAt = true, q.begun
	} else {
		q.lastFailed = max(q.lastFailed, n)
	}
	q.take(n, s)
	if q.late && !wasLate {
		// Held calls sent before the row hold it back from now on.
		q.again(q.floor)
	}
}

// take takes call n's outcome s into the row.
func (q *quietRow) take(n int, s silence) {
	if n <= q.floor {
		return // sent before a call that was answered: not in the row
	}
	if n <= q.front {
		// A call the row passed as held ended.
		if s.answered {
			q.again(n)
			return
		}
		q.calls[n-q.floor-1] = rowCall{n: n, s: s}
		q.count()
		return
	}
	if q.ended == nil {
		q.ended = map[int]silence{}
	}
	q.ended[n] = s
	if !s.answered && (q.seen == 0 || s.after < q.seen) {
		q.seen = s.after
	}
	q.advance()
}

// again begins the row after call floor: the calls past it that ended
// are taken again, as they came, those in flight held or holding the row
// back as things stand now.
func (q *quietRow) again(floor int) {
	if q.ended == nil {
		q.ended = map[int]silence{}
	}
	for _, c := range q.calls {
		if !c.held && c.n > floor {
			q.ended[c.n] = c.s
		}
	}
	q.floor, q.front, q.calls = floor, floor, nil
	q.seen = 0
	for n, s := range q.ended {
		if n <= floor {
			delete(q.ended, n)
		} else if !s.answered && (q.seen == 0 || s.after < q.seen) {
			q.seen = s.after
		}
	}
	q.advance()
}

// advance takes into the row the calls past its front that ended or are
// held, in the order they were sent, until one that holds it back.
func (q *quietRow) advance() {
	for {
		k := q.front + 1
		if s, ok := q.ended[k]; ok {
			delete(q.ended, k)
			q.front = k
			if s.answered {
				q.floor, q.calls, q.seen = k, q.calls[:0], 0
				for _, s := range q.ended {
					if !s.answered && (q.seen == 0 || s.after < q.seen) {
						q.seen = s.after
					}
				}
				continue
			}
			q.calls = append(q.calls, rowCall{n: k, s: s})
			continue
		}
		if k > q.begun || !q.passes(k) {
			break
		}
		q.front = k
		q.calls = append(q.calls, rowCall{n: k, held: true})
	}
	q.count()
}

// passes says whether call k, in flight, is passed as held rather than
// holding the row back.
func (q *quietRow) passes(k int) bool {
	if q.seen == 0 {
		return false // no failure of the row was read: nothing to decide
	}
	if k > q.seen {
		return true // sent to a receiver already failing the row's calls
	}
	// Sent after the last answer was read, to a receiver that has not
	// answered late: it may be answered as no call since was.
	return q.answeredAny && !q.late && k > q.answeredAt
}

// count counts the row's calls.
func (q *quietRow) count() {
	q.quiet, q.timedOut, q.silent, q.together = 0, 0, 0, 0
	for _, c := range q.calls {
		if c.held {
			continue
		}
		s := c.s
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

// heldCount is the number of the row's calls still held.
func (q *quietRow) heldCount() int { return len(q.heldCalls()) }

// heldCalls are the numbers of the row's calls still held, in the order
// sent.
func (q *quietRow) heldCalls() []int {
	var held []int
	for _, c := range q.calls {
		if c.held {
			held = append(held, c.n)
		}
	}
	return held
}

// failedCalls says the row's calls that ended without an answer, by
// what they got, in the order sent: "connection closed: calls 7-9, 11;
// timeout: calls 6, 10" (ErrorGroup's words), and how many things.
func (q *quietRow) failedCalls() (string, int) {
	var kinds []string
	byKind := map[string][]int{}
	for _, c := range q.calls {
		if c.held || !c.s.silent {
			continue
		}
		k := attempt.ErrorGroup(c.s.a)
		if byKind[k] == nil {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], c.n)
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k + ": calls " + callRanges(byKind[k], 6)
	}
	return strings.Join(parts, "; "), len(kinds)
}

// heldWhere says where the held calls were sent among the row's calls
// that ended without an answer: "before", "among", "after", or two or
// three of them ("before or among", "among or after").
func (q *quietRow) heldWhere(held []int) string {
	first, last := 0, 0
	for _, c := range q.calls {
		if !c.held && c.s.silent {
			if first == 0 {
				first = c.n
			}
			last = c.n
		}
	}
	var before, among, after bool
	for _, n := range held {
		switch {
		case n < first:
			before = true
		case n > last:
			after = true
		default:
			among = true
		}
	}
	var where []string
	for _, w := range []struct {
		is   bool
		word string
	}{{before, "before"}, {among, "among"}, {after, "after"}} {
		if w.is {
			where = append(where, w.word)
		}
	}
	if len(where) == 3 {
		return "before, among or after"
	}
	return strings.Join(where, " or ")
}

// reason is what a stop says of the row (before the first case it stops
// after): how many calls in a row got no answer, and what; with calls
// held, or calls that got different things, which calls, by number.
func (q *quietRow) reason() string {
	failed, kinds := q.failedCalls()
	held := q.heldCalls()
	switch {
	case len(held) > 0:
		// A row that passed held calls is not one of calls that all
		// ended: which ended, and which the receiver still held, and
		// where they were sent among those.
		were, calls := "were", "calls"
		if len(held) == 1 {
			were, calls = "was", "call"
		}
		return fmt.Sprintf("%d calls in a row got no answer (%s, numbered in the order sent), and %d sent %s them %s still in flight without an answer when the run stopped (%s %s)",
			q.silent, failed, len(held), q.heldWhere(held), were, calls, callRanges(held, 6))
	case kinds > 1:
		return fmt.Sprintf("%d calls in a row got no answer (%s, numbered in the order sent)", q.silent, failed)
	}
	return fmt.Sprintf("%d calls in a row got no answer (%s)", q.silent, attempt.ShortError(q.last))
}

// unanswered is what a stop says of the row of a receiver that answered
// no call, where "no answer from URL" and one kind of failure do not say
// it all ("" where they do): calls that got different things, or were
// held, each by number (the reason, as of a receiver that stopped); and
// the calls the run waited for until the time limit (limit): those sent
// before any call's failure was read, which held the row back (passes),
// as an answer to one, as late as that, would have been the receiver's
// first and the run would have gone on (TestFirstBurstHeldAnsweredLateIsSaid).
// The run took the whole time limit for them: said, with why.
func (q *quietRow) unanswered(limit time.Duration) string {
	_, kinds := q.failedCalls()
	var waited []int
	for _, c := range q.calls {
		if !c.held && c.s.timedOut && c.n <= q.seen {
			waited = append(waited, c.n)
		}
	}
	if kinds <= 1 && q.heldCount() == 0 && len(waited) == 0 {
		return ""
	}
	why := q.reason()
	if len(waited) > 0 {
		calls := "calls"
		if len(waited) == 1 {
			calls = "call"
		}
		why += fmt.Sprintf("; the run waited out the time limit (%s) for %s %s, which got no answer within it: sent before any call's failure was read, to a receiver that had answered nothing, an answer to any would have been its first",
			limit, calls, callRanges(waited, 6))
	}
	return why
}

// reached says whether a call of the row that ended without an answer
// reached the receiver: one not refused, nor failed before a connection
// (a name that did not resolve, a TLS handshake that failed).
func (q *quietRow) reached() bool {
	for _, c := range q.calls {
		if c.held || !c.s.silent {
			continue
		}
		switch c.s.a.Kind {
		case attempt.KindRefused, attempt.KindDNS, attempt.KindTLS:
		default:
			return true
		}
	}
	return false
}

// callRanges says call numbers as runs: "7-9, 11, 15-27"; past max runs,
// how many more calls.
func callRanges(ns []int, most int) string {
	var b strings.Builder
	runs := 0
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if runs == most {
			b.WriteString(", and " + strconv.Itoa(len(ns)-i) + " more")
			break
		}
		if runs > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(ns[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ns[j]))
		}
		runs++
		i = j + 1
	}
	return b.String()
}
