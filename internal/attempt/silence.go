package attempt

import (
	"strconv"
	"strings"
	"time"
)

// Silence is what passed between whsim and the receiver on a call the
// time limit ended before an answer came, on a connection it had: how
// many bytes of the call went out (Whole: all of it, its write ended), of
// a body of how many, and how many bytes of an answer came. A timeout
// whose connection was none of those whsim watches (HTTP/2's carry other
// calls' bytes), or that never had one, has none: not measured, which is
// no 0.
type Silence struct {
	// Wrote is the bytes of the call written on the connection, its head
	// and its body.
	Wrote int
	// Whole says the write of the call ended, all of it in the socket:
	// whether the receiver read it is not known.
	Whole bool
	// Body is the length of the call's body.
	Body int
	// Read is the bytes of an answer that came, not a whole head.
	Read int
	// Waited is the time limit the call waited for an answer.
	Waited time.Duration
}

// Words say, in place of net/http's "awaiting headers", what the call
// did: "no answer within the time limit (5s): the call was written whole
// (2,345 bytes; whether the receiver read them is not known) and no byte
// of an answer came". A call whose write did not end says it in
// notTakenWords.
func (s *Silence) Words() string {
	w := "no answer within the time limit (" + s.Waited.String() + "): the call was written whole (" +
		Thousands(s.Wrote) + " bytes; whether the receiver read them is not known)"
	if s.Read == 0 {
		return w + " and no byte of an answer came"
	}
	return w + " and " + Thousands(s.Read) + " " + plural(s.Read, "byte", "bytes") + " of an answer came, not its whole head"
}

// Group is Words without the counts, which differ from call to call:
// what a summary says of every call it counts so.
func (s *Silence) Group() string {
	switch {
	case !s.Whole:
		return BodyNotTakenWords + ": the write of the call did not complete within the time limit"
	case s.Read == 0:
		return "the call was written whole and no byte of an answer came within the time limit"
	}
	return "the call was written whole and bytes of an answer came, not its whole head, within the time limit"
}

// ErrorGroup is ShortError without what differs from call to call: the
// bytes a call whose body was never taken wrote, which split the calls of
// one cause into as many groups as counts. A count of calls by cause keys
// on it.
func ErrorGroup(a Attempt) string {
	if s := a.Silent; s != nil && !s.Whole && a.Kind == KindTimeout && strings.Contains(a.Err, BodyNotTakenWords) {
		return KindTimeout + ": " + s.Group()
	}
	return ShortError(a)
}

// Thousands writes n with a comma every three digits (262,144), as send's
// summary and the silence words both print byte counts.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
