// Package capture defines the capture record: one call that reached
// `whsim listen`, written as one line of NDJSON, byte-exact, and read back by
// validate and replay.
package capture

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/jsonerr"
	"github.com/whsim/whsim/internal/spec"
)

// Version is the record format version, the value of the "capture" key that
// marks a line as a capture record.
const Version = 1

// VersionRejected is the version of a record of a request listen's HTTP
// server refused before listen could read it (Record.Rejected): such a
// record holds no request to send again or check, and a reader that does
// not know the rejected member must not take it for a call that came
// with an empty body. Readers refuse versions above it.
const VersionRejected = 2

// Body encodings. Text that is valid UTF-8 is kept as it is, so a capture is
// readable; anything else is base64 so that no byte is lost.
const (
	UTF8   = "utf8"
	Base64 = "base64"
)

// Record is one captured call. Field order is the order on disk.
//
// Path, Query and Headers hold the bytes as received (Path decoded, with
// RawPath the form the sender wrote it in when that is not Path escaped as
// Go escapes it). On disk a path or a query that is not valid UTF-8 is
// base64, marked by PathEncoding (which covers RawPath too) or
// QueryEncoding, and so are the values of a
// header with a value that is not, marked in HeaderEncodings: Append sets
// the markers in the line, Reader.Next decodes and clears them, so in memory
// they are empty.
type Record struct {
	Capture int       `json:"capture"`
	Time    time.Time `json:"time"`
	Remote  string    `json:"remote"`
	Method  string    `json:"method"`
	// Proto is the protocol the call came in as net/http names it
	// (HTTP/1.0, HTTP/2.0 for h2c), only when it was not HTTP/1.1: ""
	// is HTTP/1.1, as every record written before the member says.
	Proto string `json:"proto,omitempty"`
	Path  string `json:"path"`
	// RawPath is the path as the request line wrote it, only when that is
	// not Path escaped as url.URL escapes it (net/http's RawPath): "/a%2Fb"
	// for Path "/a/b", "/%41" for "/A". Those are other resources to a
	// receiver that routes on the raw path, and a replay of Path alone
	// would send another call. "" (nearly every call, and every record
	// written before the member) is Path escaped; older readers read Path
	// as they always did. See Record.Target.
	RawPath         string            `json:"rawPath,omitempty"`
	PathEncoding    string            `json:"pathEncoding,omitempty"`
	Query           string            `json:"query"`
	QueryEncoding   string            `json:"queryEncoding,omitempty"`
	Headers         http.Header       `json:"headers"`
	HeaderEncodings map[string]string `json:"headerEncodings,omitempty"`
	Body            string            `json:"body"`
	BodyEncoding    string            `json:"bodyEncoding"`
	// BodyOverLimit, when set, says the body was over listen's --max-body
	// of that many bytes and was not kept (answered 413): Body is empty,
	// which is not the body the sender sent, so the record holds no call
	// to send again or check. Older readers ignore the member and read an
	// empty body, as they read such a record before it was written.
	BodyOverLimit int64     `json:"bodyOverLimit,omitempty"`
	Response      *Response `json:"response,omitempty"`
	// Unanswered, when set, says the sender never got Response: it had
	// gone before the answer, or listen's stop cut the call short. On
	// disk Response is then inside it, never "response", so that a reader
	// that knows no "unanswered" (an older whsim, a user's jq) reads a
	// call with no answer rather than one delivered; read back, Response
	// holds it again and Unanswered.Response is nil.
	Unanswered *Unanswered `json:"unanswered,omitempty"`
	Forward    *Forward    `json:"forward,omitempty"`
	// Fault is what listen --fault did to the call; the members above stay
	// what the sender sent and what it was answered.
	Fault *Fault `json:"fault,omitempty"`
	// Rejected, when set, says the request was refused by the HTTP server
	// before listen could read it (a malformed head): Method, Path and
	// Query are what could be made out of its request line, Headers and
	// Body are empty, Response is what the server answered (nil: nothing,
	// the connection ended first). Capture is VersionRejected.
	Rejected *Rejected `json:"rejected,omitempty"`

	// checkedBody is Body as ShareBody found it valid UTF-8: while Body is
	// still that string, Append escapes it without checking it again.
	checkedBody string
}

// Response is what listen answered.
type Response struct {
	Status       int         `json:"status"`
	Headers      http.Header `json:"headers,omitempty"`
	Body         string      `json:"body"`
	BodyEncoding string      `json:"bodyEncoding"`
}

// Unanswered is why the sender never got listen's answer: the finding
// listen showed (Rule, http-sender-gone or http-unanswered, and Reason,
// its message). Response is that answer, on disk only (see
// Record.Unanswered).
type Unanswered struct {
	Rule     string    `json:"rule"`
	Reason   string    `json:"reason"`
	Response *Response `json:"response,omitempty"`
}

// Forward is what the receiver behind listen --forward-to answered.
type Forward struct {
	URL          string      `json:"url"`
	Status       int         `json:"status,omitempty"`
	Headers      http.Header `json:"headers,omitempty"`
	Body         string      `json:"body,omitempty"`
	BodyEncoding string      `json:"bodyEncoding,omitempty"`
	LatencyMS    float64     `json:"latencyMs"`
	Error        string      `json:"error,omitempty"`
	// BodyCut says, when the receiver's answer body was over listen's
	// body limit, that Body (and the sender's answer) holds only its
	// first bytes: the status is still the receiver's, which took the
	// call, and a 502 in its place would have the sender retry it.
	BodyCut string `json:"bodyCut,omitempty"`
}

// Fault is a fault listen --fault put on a call's path: which, on which
// attempt of its requestId, and what the sender and the receiver each saw.
type Fault struct {
	Kind string `json:"kind"`
	Arg  string `json:"arg,omitempty"`
	// Attempt is the n-th call listen saw with the call's requestId.
	Attempt int `json:"attempt"`
	// Sender and Receiver say in words what each side saw.
	Sender   string `json:"sender"`
	Receiver string `json:"receiver"`
	// Window is how many calls the reorder window this call went in held
	// (reorder only): 1 is a call nothing was shuffled with, as every
	// call of a sender that waits for each answer is.
	Window int `json:"window,omitempty"`
	// Deliveries are the calls the receiver was sent for this one, in the
	// order they went; none when it was not forwarded.
	Deliveries []Delivery `json:"deliveries"`
}

// Rejected is a request the HTTP server refused before listen could read
// it, as far as it was seen.
type Rejected struct {
	// Reason says why, in the server's words where it gave any.
	Reason string `json:"reason"`
	// Head is the first bytes that arrived of the request (at most
	// MaxRejectedHead), as Body holds a body: text when valid UTF-8, else
	// base64 as HeadEncoding says.
	Head         string `json:"head"`
	HeadEncoding string `json:"headEncoding"`
	// HeadBytes is how many bytes arrived in all: more than Head holds
	// when the head was cut to MaxRejectedHead.
	HeadBytes int64 `json:"headBytes"`
	// ClosedAtStop says listen's own stop (Ctrl-C, SIGTERM) closed the
	// request's connection as it arrived, unread: the HTTP server did not
	// refuse it for what it was, and its sender did nothing wrong. A
	// reader without the member reads such a record as a refused request,
	// as it did before the member existed.
	ClosedAtStop bool `json:"closedAtStop,omitempty"`
}

// MaxRejectedHead bounds what a record keeps of a refused request's head:
// one over net/http's header limit (1 MiB) must not make a 1 MiB record.
const MaxRejectedHead = 8 << 10

// RejectedWhy says, for a record with Rejected, why the request was
// refused and what it was answered: the message of its finding.
func (r *Record) RejectedWhy() string {
	if r.Rejected.ClosedAtStop {
		// Its reason says that listen stopped, and that nothing answered.
		return "not read, so not checked: " + r.Rejected.Reason
	}
	answered := "no answer"
	if r.Response != nil {
		answered = "answered " + strconv.Itoa(r.Response.Status)
	}
	return "the HTTP server refused the request before listen could read it: " + r.Rejected.Reason + " (" + answered + ")"
}

// OverLimitWhy says, for a record with BodyOverLimit, what became of its
// body and what it was answered: the message of its finding, as listen
// said it (http-body-limit).
func (r *Record) OverLimitWhy() string {
	answered := "no answer"
	if r.Response != nil {
		answered = "answered " + strconv.Itoa(r.Response.Status)
	}
	return "body over the " + strconv.FormatInt(r.BodyOverLimit, 10) + "-byte limit (" + answered + "): listen did not keep it"
}

// RawHead returns the bytes of the refused request's head, as recorded.
func (r *Rejected) RawHead() ([]byte, error) { return DecodeBody(r.Head, r.HeadEncoding) }

// Delivery is one call listen sent the receiver for a faulted call.
type Delivery struct {
	// RequestID is set when it is not the sender's (new-request-id).
	RequestID string  `json:"requestId,omitempty"`
	Bytes     int     `json:"bytes"`
	Status    int     `json:"status,omitempty"`
	Error     string  `json:"error,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
}

// EncodeBody returns the stored form of a body and its encoding.
func EncodeBody(b []byte) (string, string) {
	if utf8.Valid(b) {
		return string(b), UTF8
	}
	return base64.StdEncoding.EncodeToString(b), Base64
}

// DecodeBody returns the bytes of a stored body.
func DecodeBody(s, encoding string) ([]byte, error) {
	switch encoding {
	case UTF8, "":
		return []byte(s), nil
	case Base64:
		return base64.StdEncoding.DecodeString(s)
	}
	return nil, fmt.Errorf("unknown body encoding %q", encoding)
}

// SetBody stores b as the record's body.
func (r *Record) SetBody(b []byte) { r.Body, r.BodyEncoding = EncodeBody(b) }

// ShareBody stores b as the record's body as SetBody does, without copying
// a UTF-8 body: Body shares b's bytes, which the caller must not write to
// after. It remembers that the body is valid UTF-8, which spares Append a
// second check (jsonstr.AppendUTF8); a Body set otherwise later is checked.
func (r *Record) ShareBody(b []byte) {
	if utf8.Valid(b) {
		r.Body, r.BodyEncoding = unsafe.String(unsafe.SliceData(b), len(b)), UTF8
		r.checkedBody = r.Body
		return
	}
	r.Body, r.BodyEncoding = base64.StdEncoding.EncodeToString(b), Base64
}

// DropBody empties the record's body, and lets go of the bytes ShareBody
// shared: a copy of a record whose Body alone was set to "" still held
// them through the note of the check, and so the whole body.
func (r *Record) DropBody() { r.Body, r.checkedBody = "", "" }

// bodyChecked reports whether Body is the string ShareBody found valid
// UTF-8: the same bytes at the same address.
func (r *Record) bodyChecked() bool {
	return len(r.Body) == len(r.checkedBody) && unsafe.StringData(r.Body) == unsafe.StringData(r.checkedBody)
}

// TargetPath is the path as the sender's request line wrote it: RawPath,
// or else Path escaped as url.URL escapes it, which is what the sender
// wrote when net/http kept no RawPath. A record written before RawPath
// existed gives what it gave then.
//
// A target that is no path (the "*" of OPTIONS *, the authority
// "example.com:443" of a CONNECT) is as it came: url.URL would escape the
// brackets of "[::1]:443", which the sender did not.
func (r *Record) TargetPath() string {
	if r.RawPath != "" {
		return r.RawPath
	}
	if r.Path != "" && r.Path[0] != '/' {
		return r.Path
	}
	return (&url.URL{Path: r.Path}).EscapedPath()
}

// SetURLPath sets Path and RawPath to the path a client sends for u
// (its EscapedPath, "/" for none), as listen would record it.
func (r *Record) SetURLPath(u *url.URL) {
	sent := cmp.Or(u.EscapedPath(), "/")
	r.Path, r.RawPath = cmp.Or(u.Path, "/"), ""
	if sent != (&url.URL{Path: r.Path}).EscapedPath() {
		r.RawPath = sent
	}
}

// ShownPath is the path as people read it: decoded, unless the sender
// wrote it otherwise than Go escapes it (RawPath), where decoding would
// lose what tells it apart: "/a%2Fb" is not "/a/b", "/%41" not "/A".
func (r *Record) ShownPath() string {
	if r.RawPath != "" {
		return r.RawPath
	}
	return r.Path
}

// URLPath is TargetPath as it goes in a URL: the bytes a URL cannot hold
// (a space, '#', '"', a byte above 0x7f that a sender wrote raw) as %XX,
// every escape the sender wrote kept as written.
func (r *Record) URLPath() string {
	p := r.TargetPath()
	i := 0
	for i < len(p) && urlPathByte(p[i]) {
		i++
	}
	if i == len(p) {
		return p
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(p)+8)
	b = append(b, p[:i]...)
	for ; i < len(p); i++ {
		if c := p[i]; urlPathByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// urlPathByte says whether c may stand in a URL's path as it is (RFC
// 3986's pchar and '/'); '%' is one: net/http took the sender's escapes
// as valid, or refused the call.
func urlPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/%", c) >= 0
}

// RequestBody returns the request body byte for byte.
func (r *Record) RequestBody() ([]byte, error) { return DecodeBody(r.Body, r.BodyEncoding) }

// Event returns the query's businessType, and whether it was there.
func (r *Record) Event() (string, bool) { return spec.QueryEvent(r.Query) }

// onDisk is r as its line holds it: a query or header values that are not
// valid UTF-8 in base64, marked; the answer of a call unanswered inside
// "unanswered". r itself is left as it is; it is returned when it needs
// nothing, as nearly every call does.
func onDisk(r *Record) *Record {
	if r.Unanswered != nil && r.Response != nil {
		d := *r
		d.Unanswered = &Unanswered{Rule: r.Unanswered.Rule, Reason: r.Unanswered.Reason, Response: r.Response}
		d.Response = nil
		r = &d
	}
	pathOK, queryOK := utf8.ValidString(r.Path) && utf8.ValidString(r.RawPath), utf8.ValidString(r.Query)
	var bad []string
	for k, vs := range r.Headers {
		for _, v := range vs {
			if !utf8.ValidString(v) {
				bad = append(bad, k)
				break
			}
		}
	}
	if pathOK && queryOK && len(bad) == 0 {
		return r
	}
	d := *r
	if !pathOK {
		d.Path, d.PathEncoding = base64.StdEncoding.EncodeToString([]byte(r.Path)), Base64
		if r.RawPath != "" {
			d.RawPath = base64.StdEncoding.EncodeToString([]byte(r.RawPath))
		}
	}
	if !queryOK {
		d.Query, d.QueryEncoding = base64.StdEncoding.EncodeToString([]byte(r.Query)), Base64
	}
	if len(bad) > 0 {
		d.Headers = r.Headers.Clone()
		d.HeaderEncodings = make(map[string]string, len(bad))
		for _, k := range bad {
			vs := make([]string, len(r.Headers[k]))
			for i, v := range r.Headers[k] {
				vs[i] = base64.StdEncoding.EncodeToString([]byte(v))
			}
			d.Headers[k] = vs
			d.HeaderEncodings[k] = Base64
		}
	}
	return &d
}

// fromDisk decodes what onDisk encoded, in place.
func (r *Record) fromDisk() error {
	if u := r.Unanswered; u != nil {
		if r.Response != nil && u.Response != nil {
			return errors.New(`a record with "response" and "unanswered.response": the call was answered or it was not`)
		}
		if u.Response != nil {
			r.Response, u.Response = u.Response, nil
		}
	}
	if r.PathEncoding != "" {
		p, err := DecodeBody(r.Path, r.PathEncoding)
		if err != nil {
			return fmt.Errorf("path: %w", err)
		}
		raw, err := DecodeBody(r.RawPath, r.PathEncoding)
		if err != nil {
			return fmt.Errorf("rawPath: %w", err)
		}
		r.Path, r.RawPath, r.PathEncoding = string(p), string(raw), ""
	}
	if r.RawPath != "" {
		// A rawPath that is not path as sent (a hand-edited record) would
		// have whsim send one path and an older reader, or jq, show another.
		if d, err := url.PathUnescape(r.RawPath); err != nil || d != r.Path {
			return fmt.Errorf("rawPath %q is not path %q as sent (escaped): the record names two paths", r.RawPath, r.Path)
		}
	}
	if r.QueryEncoding != "" {
		q, err := DecodeBody(r.Query, r.QueryEncoding)
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		r.Query, r.QueryEncoding = string(q), ""
	}
	for k, enc := range r.HeaderEncodings {
		vs, ok := r.Headers[k]
		if !ok {
			// A header is one in any case (checkKeys refuses two): a
			// hand-made record's "x-a" encoding is X-A's, whose base64
			// text otherwise went out on replay as its value.
			for name, hv := range r.Headers {
				if strings.EqualFold(name, k) {
					vs = hv
				}
			}
		}
		for i, v := range vs {
			b, err := DecodeBody(v, enc)
			if err != nil {
				return fmt.Errorf("header %s: %w", k, err)
			}
			vs[i] = string(b)
		}
	}
	r.HeaderEncodings = nil
	return nil
}

// Append appends r as one line of NDJSON to b.
func Append(b []byte, r *Record) ([]byte, error) {
	r.Capture = Version
	if r.Rejected != nil {
		r.Capture = VersionRejected
	}
	r = onDisk(r)
	if out, ok := appendRecord(b, r); ok {
		return out, nil
	}
	// Values the fast path does not handle (a year outside 0-9999, a NaN
	// latency): encoding/json says what is wrong.
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// TornError reports a line cut short, as a crash or a full disk while
// writing leaves it: the last line, or one a restarted listen ended and
// appended its records after (Restarted). Readers report it and go on; it
// is the only record lost.
type TornError struct {
	Line      int
	Err       error
	Restarted bool
}

// Error is input.TornLine's wording, at its line, with why the line does
// not read; what a command did with it (skipped, not replayed) is the
// command's to add.
func (e *TornError) Error() string {
	return fmt.Sprintf("line %d: %s (%v)", e.Line, input.TornLine(e.Restarted), e.Err)
}

// tornCause is why a torn line does not read: that it ends early when it
// is valid JSON as far as it goes. encoding/json reads one space past the
// end, so a line cut after an escape's backslash, in a number or in a
// literal would be said to hold a space it does not hold.
func tornCause(line []byte, err error) error {
	if se := jsonerr.FirstSyntaxError(line); se != nil && !se.AtByte {
		return errors.New("unexpected end of JSON input")
	}
	return err
}

// At says err, a *TornError or *LineError of the input name, at its place
// as every command that reads a capture says it (input.At): name:line:
// what, and name:line:column: what of a line encoding/json stopped at a
// byte of. Any other error is name: what.
func At(name string, err error) string {
	if torn, ok := errors.AsType[*TornError](err); ok {
		return LineAt(name, torn.Line, torn)
	}
	if bad, ok := errors.AsType[*LineError](err); ok {
		return LineAt(name, bad.Line, bad.Err)
	}
	return name + ": " + err.Error()
}

// LineAt says err, why line n of the input name is no record (a
// LineError's Err), at its place as At does.
func LineAt(name string, n int, err error) string {
	if torn, ok := errors.AsType[*TornError](err); ok {
		// Why it does not read may be a syntax error at its end: it is
		// said as the torn line it is.
		return input.At(name, n, 0, fmt.Sprintf("%s (%v)", input.TornLine(torn.Restarted), torn.Err))
	}
	if tl, ok := errors.AsType[*input.TooLargeError](err); ok {
		return input.At(name, n, 0, fmt.Sprintf("the line is larger than %d MiB", tl.Max>>20))
	}
	if col, msg, ok := Column(err); ok {
		return input.At(name, n, col, msg)
	}
	return input.At(name, n, 0, err.Error())
}

// UTF8Error is a record line that is not valid UTF-8 from its byte Offset
// (1 for the first), its Column in characters (input.ColumnAt).
type UTF8Error struct{ Offset, Column int }

func (e *UTF8Error) Error() string {
	return fmt.Sprintf("not valid UTF-8 at byte %d %s", e.Offset, utf8Why)
}

const utf8Why = "(listen writes such bytes in base64; read as they are, they would become U+FFFD, not the bytes that came)"

// Column is where in its line err, why a line is no record, is: the
// character encoding/json stopped at, or the first byte that is not UTF-8
// (1 for the first, counted in characters: input.ColumnAt), and what is
// wrong there without the place; ok is false for an error of no place in
// the line.
func Column(err error) (column int, msg string, ok bool) {
	if je, ok := errors.AsType[*JSONError](err); ok && je.Column > 0 {
		if _, msg, ok := jsonerr.Syntax(je.Err); ok {
			return je.Column, msg, true
		}
	}
	if ue, ok := errors.AsType[*UTF8Error](err); ok {
		return ue.Column, "not valid UTF-8 " + utf8Why, true
	}
	return 0, "", false
}

// LineError reports a line that is not a capture record.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string {
	if _, ok := errors.AsType[*input.TooLargeError](e.Err); ok {
		return e.Err.Error() // it names the line
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}
func (e *LineError) Unwrap() error { return e.Err }

// Reader reads capture records line by line, each line bounded by
// input.Max.
type Reader struct {
	in   *input.Reader
	line int
	off  int64 // where the line Next returned last starts
}

// NewReader returns a reader of the records in r.
func NewReader(r io.Reader) *Reader {
	return ReaderOf(input.NewReader(context.Background(), r, input.Options{Lines: true, Buffer: 64 << 10}))
}

// ReaderOf returns a reader of the records of an input whose Kind is
// input.Captures (or one read as lines: input.Options.Lines).
func ReaderOf(in *input.Reader) *Reader { return &Reader{in: in} }

// Line is the line number of the record Next returned last.
func (r *Reader) Line() int { return r.line }

// Offset is the byte offset, from where reading began, of the line of the
// record Next returned last: a reader started there reads that record again.
func (r *Reader) Offset() int64 { return r.off }

// Next returns the next record, io.EOF at the end, a *LineError for a line
// that is not a record or is larger than input.Max (reading may go on), or
// a *TornError for an unterminated last line that does not parse or for a
// record cut short that a restarted listen ended (input.CutShort).
func (r *Reader) Next() (*Record, error) {
	it, err := r.in.Next()
	if err != nil {
		return nil, err
	}
	r.line, r.off = it.Line, it.Offset
	if it.Long {
		return nil, &LineError{Line: r.line, Err: r.in.TooLarge(it)}
	}
	rec, err := Decode(it.Body)
	if jerr, ok := errors.AsType[*JSONError](err); ok {
		// A torn line's cause is said as it is ("unexpected end of JSON
		// input"): where it broke off is no member of the record.
		if it.Unended {
			return nil, &TornError{Line: r.line, Err: tornCause(it.Body, jerr.Err)}
		}
		if input.CutShort(it.Body) {
			return nil, &TornError{Line: r.line, Err: tornCause(it.Body, jerr.Err), Restarted: true}
		}
		return nil, &LineError{Line: r.line, Err: jerr}
	}
	if err != nil {
		return nil, &LineError{Line: r.line, Err: err}
	}
	return rec, nil
}

// InvalidUTF8 is the offset of the first byte of b that is not valid
// UTF-8, -1 when b is valid. encoding/json reads such a byte as U+FFFD
// without a word, so a file whsim reads back (a capture, a report) that
// holds one would be acted on as bytes it does not hold.
func InvalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// JSONError is Decode's error for a line encoding/json does not read as
// a record (not JSON, a member of the wrong type): the only error a line
// cut short can give.
type JSONError struct {
	Err error
	// Column is where in the line a syntax error is, in characters
	// (input.ColumnAt); 0 for an error of no place.
	Column int
}

func (e *JSONError) Error() string {
	if _, ok := errors.AsType[*time.ParseError](e.Err); ok {
		return "time: " + jsonerr.Describe(e.Err, "the record") // a record's one time
	}
	return jsonerr.Describe(e.Err, "the record")
}
func (e *JSONError) Unwrap() error { return e.Err }

// Decode reads one line as a capture record, its query and header values
// decoded (fromDisk). It refuses, besides what encoding/json refuses
// (a *JSONError), a line that is not a record, a record of a format
// version this whsim does not read (a newer whsim may mean its members
// otherwise), a "rejected" record not marked VersionRejected, and one
// that names a member twice (checkKeys), and a call with no "body" (or null).
func Decode(line []byte) (*Record, error) {
	var rec Record
	if err := json.Unmarshal(line, &rec); err != nil {
		err = jsonerr.Placed(err, line)
		je := &JSONError{Err: err}
		if offset, _, ok := jsonerr.Syntax(err); ok {
			je.Column = input.ColumnAt(line, int(offset))
		}
		return nil, je
	}
	// A key twice is said first: what the last value makes of the record
	// ("a newer whsim wrote it" of "capture":1,"capture":3) is not what
	// is wrong with it.
	given, err := checkKeys(line)
	if err != nil {
		return nil, err
	}
	if rec.Capture == 0 {
		// A "capture": 0 reads as none: said as the key it lacks, the
		// message denied the key the line begins with.
		if given&memberBit("capture") != 0 {
			return nil, errors.New("capture record format 0, which no whsim writes (it reads 1 and 2)")
		}
		return nil, errors.New(`not a capture record (no "capture" key)`)
	}
	if rec.Capture > VersionRejected {
		return nil, fmt.Errorf("capture record format %d, which this whsim does not read (it reads 1 and 2): a newer whsim wrote it", rec.Capture)
	}
	if rec.Capture < 0 {
		return nil, fmt.Errorf("capture record format %d, which no whsim writes (it reads 1 and 2)", rec.Capture)
	}
	if rec.Rejected != nil && rec.Capture != VersionRejected {
		return nil, fmt.Errorf(`a record with "rejected" is format %d, not %d`, VersionRejected, rec.Capture)
	}
	if rec.Rejected == nil && rec.Capture == VersionRejected {
		// Format 2 is a request listen never read: read as a call, its
		// empty body would be replayed and checked as the one that came.
		return nil, fmt.Errorf(`a record of format %d has "rejected" (listen writes format 2 only for a request it never read), and this one has none`, VersionRejected)
	}
	if rec.Rejected != nil && rec.Rejected.HeadBytes < 0 {
		return nil, fmt.Errorf("rejected.headBytes %d: want how many bytes came, 0 or more", rec.Rejected.HeadBytes)
	}
	if rec.BodyOverLimit < 0 {
		// Read as absent, the empty body would be replayed and checked as
		// the call that came; listen writes the member only with its
		// --max-body, which is 1 or more.
		return nil, fmt.Errorf("bodyOverLimit %d: want the limit in bytes, 1 or more (listen writes it only for a body it did not keep)", rec.BodyOverLimit)
	}
	if at := InvalidUTF8(line); at >= 0 {
		return nil, &UTF8Error{Offset: at + 1, Column: input.ColumnAt(line, at+1)}
	}
	if rec.Rejected == nil && given&memberBit("body") == 0 {
		// listen writes "body" for every call, "" for an empty one: a
		// record without it (or with null) was made or edited by hand,
		// and read as it stands it would be replayed and checked as a
		// call that came with an empty body.
		return nil, errors.New(`record has no "body" (listen writes one for every call, "" when it came empty): read as it stands, it would be sent and checked as an empty body`)
	}
	if rec.BodyOverLimit == 0 && given&memberBit("bodyOverLimit") != 0 {
		// A 0 decodes as the member absent, and is refused as a limit
		// below 1 is: read so, the empty body would be replayed and
		// checked as the call that came.
		return nil, errors.New("bodyOverLimit 0: want the limit in bytes, 1 or more (listen writes it only for a body it did not keep)")
	}
	if err := rec.fromDisk(); err != nil {
		return nil, err
	}
	return &rec, nil
}
