package check

import (
	"strconv"

	"github.com/whsim/whsim/internal/attempt"
)

// unaskedRule is what a receiver whose answers cannot be matched to calls
// breaks.
const unaskedRule = "an HTTP/1.1 receiver answers each call once, and frames each answer whole: no body on a 204, a Content-Length that counts the whole body"

// answerOn is where one of a case's answers was read: its connection,
// which of the calls answered on it it was (attempt.Attempt.ConnCall),
// and its status line as received (its code alone where the line was not
// kept).
type answerOn struct {
	conn   *attempt.Conn
	call   int64
	status string
}

// appendAnswers adds to as where res's answers were read, on connections
// watched for bytes no call asked for.
func appendAnswers(as []answerOn, res *attempt.Result) []answerOn {
	for _, a := range res.Attempts {
		if a.Conn != nil {
			status := a.StatusLine
			if status == "" { // kept only with the body (Deliverer.KeepBody)
				status = strconv.Itoa(a.Status)
			}
			as = append(as, answerOn{conn: a.Conn, call: a.ConnCall, status: status})
		}
	}
	return as
}

// stray is what the connections a result's answers came on were found
// holding: bytes no call asked for.
type stray struct {
	// after, when set, is the reason of a result one of whose answers the
	// bytes followed (the last answer read on that connection before they
	// were found): the receiver's fault, which the result fails with.
	after string
	// on, when set (and after is not), is unaskedOn's words: an answer of
	// the result came on a connection where the bytes followed another
	// call's answer, so which call each answer there was to cannot be
	// told, and the result is no verdict.
	on string
}

// drainHeld hands out (out) the results held in *q, in the order they
// were graded, while every connection the first one's answers came on
// (answers) is closed; at the run's end (end) it settles each first, a
// last look and a close. A connection still open may yet be found
// holding bytes no call asked for, and a result is never said before that
// is known. out is given what was found (stray), zero when none of the
// result's connections held such bytes. What comes on a connection after
// it was closed is not seen.
func drainHeld[T any](q *[]T, end bool, answers func(T) []answerOn, out func(res T, s stray)) {
	for len(*q) > 0 {
		res := (*q)[0]
		as := answers(res)
		for _, a := range as {
			if end {
				a.conn.Settle()
			} else if !a.conn.Settled() && !a.conn.Cleared(a.call) {
				return
			}
		}
		*q = (*q)[1:]
		out(res, strayOn(as))
	}
}

// strayOn says what the connections of answers as held (stray).
func strayOn(as []answerOn) stray {
	for _, a := range as {
		if a.conn.Followed(a.call) {
			first, _ := a.conn.Unasked()
			return stray{after: strayAfter(a.status, first)}
		}
	}
	return stray{on: unaskedOn(as)}
}

// strayAfter is the reason of a case the bytes no call asked for
// followed: after the answer read as its own (status, its status line)
// the receiver sent more on the connection, whose first line was first
// ("" when they came in the same read as the answer). True whatever they
// were, a second answer or the rest of a body its framing left out: the
// receiver sent bytes past the answers of the calls made, which a sender
// that reuses the connection reads as the next call's answer. Both
// quoted ASCII-only: the receiver's bytes, bound for terminals and
// reports.
func strayAfter(status, first string) string {
	what := "they came in the same read as the answer"
	if first != "" {
		what = "starting " + strconv.QuoteToASCII(first)
	}
	return "after the answer read as its own (" + strconv.QuoteToASCII(status) + ") the receiver sent more bytes on the kept-alive connection that no call asked for (" +
		what + "): a sender reusing the connection reads them as its next call's answer (" + unaskedRule + ")"
}

// unaskedOn says, as a reason goes on after "on the connection …", what
// the first connection of as found holding bytes no call asked for before
// the answer read there held (their first line quoted ASCII-only: the
// receiver's bytes, bound for terminals and reports), "" when none did.
// Bytes that came after a later answer leave an earlier one its own.
func unaskedOn(as []answerOn) string {
	for _, a := range as {
		if first, seen := a.conn.UnaskedBefore(a.call); seen {
			return unaskedWords(first)
		}
	}
	return ""
}

// unaskedWords is unaskedOn's words for bytes whose first line was first
// ("" when they came with the answer and were not seen apart).
func unaskedWords(first string) string {
	what := "they came with the answer"
	if first != "" {
		what = "starting " + strconv.QuoteToASCII(first)
	}
	return "the receiver sent bytes after an answer that no call asked for (" + what +
		"), so the answers on it cannot be matched to calls (" + unaskedRule + ")"
}
