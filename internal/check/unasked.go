package check

import (
	"slices"
	"strconv"

	"github.com/whsim/whsim/internal/attempt"
)

// unaskedRule is what a receiver whose answers cannot be matched to calls
// breaks.
const unaskedRule = "an HTTP/1.1 receiver answers each call once, and frames each answer whole: no body on a 204, a Content-Length that counts the whole body"

// drainHeld hands out (out) the results held in *q, in the order they
// were graded, while every connection the first one's answers came on
// (conns) is closed; at the run's end (end) it settles each first, a last
// look and a close. A connection still open may yet be found holding
// bytes no call asked for, and a result is never said before that is
// known. out is given unaskedOn's words for the result's connections, ""
// when none held such bytes. What comes on a connection after it was
// closed is not seen.
func drainHeld[T any](q *[]T, end bool, conns func(T) []*attempt.Conn, out func(res T, unasked string)) {
	for len(*q) > 0 {
		res := (*q)[0]
		cs := conns(res)
		for _, c := range cs {
			if end {
				c.Settle()
			} else if !c.Settled() {
				return
			}
		}
		*q = (*q)[1:]
		out(res, unaskedOn(cs))
	}
}

// unaskedOn says, as a reason goes on after "on the connection …", what
// the first of cs found holding bytes no call asked for held (their first
// line quoted ASCII-only: the receiver's bytes, bound for terminals and
// reports), "" when none did.
func unaskedOn(cs []*attempt.Conn) string {
	for _, c := range cs {
		if first, seen := c.Unasked(); seen {
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

// appendConns adds to cs the connections res's answers were read on,
// each once.
func appendConns(cs []*attempt.Conn, res *attempt.Result) []*attempt.Conn {
	for _, a := range res.Attempts {
		if a.Conn != nil && !slices.Contains(cs, a.Conn) {
			cs = append(cs, a.Conn)
		}
	}
	return cs
}
