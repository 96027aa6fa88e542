package attempt

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"syscall"

	"github.com/whsim/whsim/internal/malformedhead"
)

// headCutError is an answer's head the receiver's close (or reset) cut
// short: the bytes that came are the start of a head net/http reads,
// stopped in its status line, in a header line, or before its end
// (malformedhead.CutShort). No whole answer came: it counts as the call's
// connection ended unanswered (KindClosed, KindReset), not as a malformed
// answer. net/http's reader takes the line a close cut for a whole one
// and refuses it ("malformed MIME header: missing colon" of
// "Content-Le", "malformed HTTP status code" of "HTTP/1.1 2"), and the
// fast path said the same; a value cut ("Transfer-Encoding: chun") said
// "connection closed", with no word of the answer that began. listen
// --forward-to says it in the same words (receiver's headCutShort).
type headCutError struct {
	reset bool
	where string // malformedhead.CutShort's
	n     int    // the bytes of the head that came
	head  string // quoted (headQuote)
}

// headCutWords end a headCutError's words, which ShortError says whole.
const headCutWords = "no whole answer came"

// HeadCutWords says words (an attempt's error, or ShortError's) say the
// receiver's close cut its answer's head (headCutError): the receiver
// was reached, and began an answer.
func HeadCutWords(words string) bool { return strings.HasSuffix(words, headCutWords) }

func (e headCutError) Error() string {
	how := "closed"
	if e.reset {
		how = "reset"
	}
	where := "before the end of its answer's head"
	switch e.where {
	case "in the status line":
		where = "in the status line of its answer's head"
	case "in a header line":
		where = "in a header line of its answer's head"
	}
	return "the receiver " + how + " the connection " + where + ", after " + strconv.Itoa(e.n) + " bytes (" + e.head + "): " + headCutWords
}

// maxHeadJudged bounds the bytes of an answer's head kept to judge a cut
// one (cutHead): as much as a lane holds of an answer (laneAnswer, on
// Linux), and the other paths keep as much. A longer head cut short is
// said as the reader met it.
const maxHeadJudged = 16 << 10

// maxHeadQuoted bounds the bytes of a cut head an error quotes: a longer
// one is quoted by its last ones, where it stopped.
const maxHeadQuoted = 96

// cutHead is err, which ended the reading of an answer's head, unless end
// (the connection's end: its close or reset) cut the head, head being
// every byte of the answer that came: then a headCutError.
func cutHead(err, end error, head []byte) error {
	if err == nil || end == nil || len(head) == 0 || len(head) >= maxHeadJudged {
		return err
	}
	reset := errors.Is(end, syscall.ECONNRESET) || errors.Is(end, syscall.EPIPE)
	if !reset && !errors.Is(end, io.EOF) && !errors.Is(end, io.ErrUnexpectedEOF) {
		return err // the time limit's, Ctrl-C's, whsim's own close
	}
	where, ok := malformedhead.CutShort(head)
	if !ok {
		return err
	}
	return headCutError{reset: reset, where: where, n: len(head), head: headQuote(head)}
}

// headQuote is head quoted, by its last maxHeadQuoted bytes when longer.
func headQuote(head []byte) string {
	if len(head) <= maxHeadQuoted {
		return strconv.Quote(string(head))
	}
	return "ending " + strconv.Quote(string(head[len(head)-maxHeadQuoted:]))
}
