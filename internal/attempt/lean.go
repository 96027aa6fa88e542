package attempt

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// leanHead is what readLean takes of an answer's head: the fields that
// frame the answer (Content-Length, Transfer-Encoding, Connection, and
// Trailer, which may announce none of them) and those a delivery uses
// (Retry-After, Location, into the answer's Header). The head is read line by line as net/http reads it
// (textproto.Reader.ReadMIMEHeader, then http's transfer rules): the
// same lines are refused, continuation lines (obs-fold) are joined to
// their field, and an answer framed two ways is refused rather than read
// one way, so that the fast path never takes an answer net/http's path
// (https, -v, check) refuses, nor frames one differently; what it refuses
// it says in net/http's words (textproto's and http's), so that a
// receiver's fault reads the same on every path.
type leanHead struct {
	trailer  bool  // a chunked body's trailer: its fields are checked, not taken
	http10   bool  // an HTTP/1.0 answer, which knows no Transfer-Encoding
	length   int64 // the Content-Length, -1 for none
	digits   int   // how many digits the Content-Length was sent with
	chunked  bool  // Transfer-Encoding: chunked
	close    bool  // Connection says close
	keepOpen bool  // Connection says keep-alive
	// The framing fields as net/http judges them, once the head is read
	// (transferErr): how many Transfer-Encoding and Content-Length fields
	// came, the first of each when it is no framing (teFirst, clFirst),
	// and every value once a second came (tes, cls: an answer framed
	// twice is refused, and said in net/http's words, which list them).
	teN, clN         int
	clBad            bool // the first Content-Length is no length
	teFirst, clFirst string
	tes, cls         []string
	te               [7]byte // the first Transfer-Encoding when it is "chunked", in any case
	line             []byte  // a field joined with its continuation lines
	long             []byte  // a line longer than the reader's buffer (readLine)
	// badTrailer is the first name a Trailer field announces that no
	// trailer may carry (a framing field), which net/http refuses in a
	// chunked answer's head ("bad trailer key").
	badTrailer string
}

// read reads the head's fields, up to its empty line, adding Retry-After
// and Location to resp's Header.
func (h *leanHead) read(br *bufio.Reader, resp *http.Response) error {
	if b, err := br.Peek(1); err == nil && (b[0] == ' ' || b[0] == '\t') {
		line, _ := br.ReadSlice('\n')
		if line = dropEOL(line); len(line) > initialLineQuoted {
			return errMessageTooLarge
		}
		return malformedError("malformed MIME header initial line: " + strconv.Quote(string(line)))
	}
	for {
		field, err := h.field(br)
		if err != nil {
			return err
		}
		if field == nil {
			return h.transferErr()
		}
		k, v, _ := bytes.Cut(field, []byte(":"))
		canonical, ok := headerKey(k)
		if !ok || !headerValue(v) {
			line := string(field)
			if ok && canonical {
				// textproto quotes the line with its name made canonical.
				line = http.CanonicalHeaderKey(string(k)) + line[len(k):]
			}
			return malformedError("malformed MIME header line: " + strconv.Quote(line))
		}
		if !canonical || h.trailer {
			continue // a name with a space before its colon is no field of ours; nor is a trailer's
		}
		v = trimLeftBlank(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			h.contentLength(trimRightBlank(v))
		case bytes.EqualFold(k, []byte("Transfer-Encoding")) && !h.http10: // an HTTP/1.0 answer's is ignored, as net/http does
			h.transferEncoding(v)
		case bytes.EqualFold(k, []byte("Connection")):
			for tok := range bytes.SplitSeq(v, []byte(",")) {
				tok = trimLeftBlank(trimRightBlank(tok))
				h.close = h.close || bytes.EqualFold(tok, []byte("close"))
				h.keepOpen = h.keepOpen || bytes.EqualFold(tok, []byte("keep-alive"))
			}
		case bytes.EqualFold(k, []byte("Retry-After")), bytes.EqualFold(k, []byte("Location")):
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
			resp.Header.Add(string(k), string(v))
		case len(k) == len("Trailer") && bytes.EqualFold(k, []byte("Trailer")) && h.badTrailer == "":
			h.badTrailer = trailerFraming(v)
		}
	}
}

// field is the head's next field, its continuation lines joined to it
// with a space each (as textproto does); nil at the head's empty line.
// It is valid until the next read of br.
func (h *leanHead) field(br *bufio.Reader) ([]byte, error) {
	line, err := readLine(br, &h.long)
	if err != nil {
		if len(line) > 0 && staleErr(err) && bytes.IndexByte(line, ':') < 0 {
			// net/http's reader takes the bytes before the connection's
			// end for a last line (bufio.Reader.ReadLine), and refuses
			// one without a colon: said here in the same words, so that
			// both paths refuse alike. Where the close cut a head that
			// bytes after it would have made whole ("Content-Le"), both
			// then say that instead (cutHead, from readAnswer).
			return nil, malformedError("malformed MIME header: missing colon: " + strconv.Quote(string(line)))
		}
		return nil, headErr(err)
	}
	line = dropEOL(line)
	if len(line) == 0 {
		return nil, nil
	}
	if bytes.IndexByte(line, ':') < 0 {
		return nil, malformedError("malformed MIME header: missing colon: " + strconv.Quote(string(line)))
	}
	line = trimLeftBlank(trimRightBlank(line))
	if br.Buffered() == 0 {
		// The look at the next line reads more into the reader's buffer,
		// over the bytes line holds (an answer that comes in pieces):
		// they are kept first.
		h.line = append(h.line[:0], line...)
		line = h.line
	}
	// Whether a continuation follows is known from the next line's first
	// byte: a head cut here is an error (a loop's errIncomplete: it reads
	// on, and parses the answer from its start again).
	b, err := br.Peek(1)
	if err != nil {
		return nil, headErr(err)
	}
	if b[0] != ' ' && b[0] != '\t' {
		return line, nil
	}
	// A continuation: the field is kept, since the next read reuses the
	// reader's buffer.
	h.line = append(h.line[:0], line...)
	for {
		b, err := br.Peek(1)
		if err != nil {
			return nil, headErr(err)
		}
		if b[0] != ' ' && b[0] != '\t' {
			return h.line, nil
		}
		next, err := readLine(br, &h.long)
		if err != nil {
			return nil, headErr(err)
		}
		h.line = append(append(h.line, ' '), trimLeftBlank(trimRightBlank(dropEOL(next)))...)
	}
}

// readLine is br's next line, its end included, however long: one longer
// than br's buffer is gathered in *long, as textproto reads a line of any
// length (the head's count, maxHead, bounds it). It is valid until the
// next read of br, or of *long.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	*long = append((*long)[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = br.ReadSlice('\n')
		*long = append(*long, line...)
	}
	return *long, err
}

// contentLength takes a Content-Length field's value v: the first sets
// the length; each later one must say the same, which transferErr judges
// (a message framed two ways is refused, as net/http does against
// request smuggling).
func (h *leanHead) contentLength(v []byte) {
	h.clN++
	if h.clN == 1 {
		n, err := strconv.ParseUint(string(v), 10, 63)
		if err != nil {
			h.clBad, h.clFirst = true, string(v)
			return
		}
		h.length, h.digits = int64(n), len(v)
		return
	}
	if h.clN == 2 {
		first := h.clFirst
		if !h.clBad {
			first = strconv.FormatInt(h.length, 10)
			first = strings.Repeat("0", h.digits-len(first)) + first
		}
		h.cls = []string{first}
	}
	h.cls = append(h.cls, string(v))
}

// transferEncoding takes a Transfer-Encoding field's value v: one, which
// says chunked, frames the answer; transferErr judges the others.
func (h *leanHead) transferEncoding(v []byte) {
	h.teN++
	switch {
	case h.teN == 1 && bytes.EqualFold(v, []byte("chunked")):
		h.chunked = true
		copy(h.te[:], v)
	case h.teN == 1:
		h.teFirst = string(v)
	case h.teN == 2:
		first := h.teFirst
		if h.chunked {
			first = string(h.te[:])
		}
		h.tes = []string{first, string(v)}
	default:
		h.tes = append(h.tes, string(v))
	}
}

// transferErr judges the framing fields of a head read whole, as net/http
// does (http.readTransfer): its Transfer-Encoding first, then its
// Content-Length, each refusal in net/http's words.
func (h *leanHead) transferErr() error {
	switch {
	case h.teN > 1:
		return malformedError("too many transfer encodings: " + quoteList(h.tes...))
	case h.teN == 1 && !h.chunked:
		return malformedError("unsupported transfer encoding: " + strconv.Quote(h.teFirst))
	}
	for _, v := range h.cls[min(1, len(h.cls)):] {
		if v != h.cls[0] {
			return malformedError("message cannot contain multiple Content-Length headers; got " + quoteList(h.cls...))
		}
	}
	switch {
	case h.clBad && h.clFirst == "":
		return malformedError("invalid empty Content-Length " + strconv.Quote(h.clFirst))
	case h.clBad:
		return malformedError("bad Content-Length " + strconv.Quote(h.clFirst))
	case h.chunked && h.badTrailer != "":
		// Judged last, as net/http does (fixTrailer), and only of a chunked
		// answer: another has no trailer to announce.
		return malformedError("bad trailer key " + strconv.Quote(h.badTrailer))
	}
	return nil
}

// trailerFraming is the first of the names a Trailer field's value v
// lists that is a framing field (Transfer-Encoding, Trailer,
// Content-Length), canonical as net/http quotes it, "" for none. The
// names are compared in ASCII only, as net/http's canonical form is made:
// Unicode's folding would take "ſ" for "s".
func trailerFraming(v []byte) string {
	for name := range bytes.SplitSeq(v, []byte(",")) {
		name = trimLeftBlank(trimRightBlank(name))
		for _, framing := range []string{"Transfer-Encoding", "Trailer", "Content-Length"} {
			if asciiEqualFold(name, framing) {
				return framing
			}
		}
	}
	return ""
}

// asciiEqualFold says whether b is s but for the case of ASCII letters.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if c|0x20 != s[i]|0x20 || c|0x20 < 'a' || c|0x20 > 'z' {
			if c != s[i] {
				return false
			}
		}
	}
	return true
}

// quoteList is a list of strings as fmt's %q writes it: ["a" "b"].
func quoteList(s ...string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// initialLineQuoted is the longest head's first line starting with white
// space that textproto quotes in its refusal; past it, it says
// errMessageTooLarge.
const initialLineQuoted = 80

// errMessageTooLarge is textproto's refusal of a line past its limit.
var errMessageTooLarge error = malformedError("message too large")

// closes says whether the answer ends its connection by its Connection
// field, as net/http's shouldClose: HTTP/1.0 unless kept alive.
func (h *leanHead) closes() bool {
	if h.http10 {
		return h.close || !h.keepOpen
	}
	return h.close
}

// headerKey says whether k is a field name net/http takes: a token, or
// one with spaces (taken, but as no field it knows: canonical false).
func headerKey(k []byte) (canonical, ok bool) {
	if len(k) == 0 {
		return false, false
	}
	canonical = true
	for _, c := range k {
		switch {
		case c == ' ':
			canonical = false
		case !tokenByte(c):
			return false, false
		}
	}
	return canonical, true
}

// tokenByte says whether c may be in a field name (RFC 9110's tchar:
// letters, digits and !#$%&'*+-.^_`|~), by a bit mask, as net/http's own
// check: it runs for every byte of every field name of every answer.
func tokenByte(c byte) bool {
	const lo = 1<<'!' | 1<<'#' | 1<<'$' | 1<<'%' | 1<<'&' | 1<<'\'' | 1<<'*' | 1<<'+' | 1<<'-' | 1<<'.' |
		(1<<10-1)<<'0' // digits
	const hi = (1<<26-1)<<('A'-64) | (1<<26-1)<<('a'-64) | 1<<('^'-64) | 1<<('_'-64) | 1<<('`'-64) | 1<<('|'-64) | 1<<('~'-64)
	switch {
	case c < 64:
		return lo&(1<<c) != 0
	case c < 128:
		return hi&(1<<(c-64)) != 0
	}
	return false
}

// headerValue says whether v is a field value net/http takes: no control
// byte but the tab (RFC 9110: CR, LF and NUL are dangerous).
func headerValue(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// dropEOL drops a line's end, LF or CRLF, as bufio.Reader.ReadLine does.
func dropEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// trimLeftBlank and trimRightBlank drop spaces and tabs, as textproto
// does: bytes.Trim's cut set would be made again for every field.
func trimLeftBlank(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func trimRightBlank(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
