package validate

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/jsonlex"
)

// The fast path of capture records. Decoding a record with encoding/json
// built every header map and took two thirds of validate's CPU on a
// capture (docs/performance.md); validation reads four strings of it. So
// a record is first read with the lexer, which type-checks every member
// encoding/json would decode into capture.Record and keeps only the four.
// Anything it is not sure capture.Decode would read the same way (a member
// of the wrong type, a duplicate or case-folded key, a bad time, a format
// version other than capture.Version, a query or header values stored
// base64) makes it give up, and the record takes the slow path, whose
// error messages are capture.Decode's. FuzzLeanRecord holds the two to the
// same answer.

// leanKind is what a member of capture.Record (or of its Response and
// Forward) must hold for encoding/json to decode it.
type leanKind uint8

const (
	leanString leanKind = iota
	leanInt
	leanFloat
	leanTime
	leanHeader    // http.Header: an object of arrays of strings
	leanStringMap // map[string]string
	leanResponse
	leanForward
	// leanRejected is a request the server refused (capture.Rejected):
	// CheckRecord says so, on the slow path.
	leanRejected
	// leanOverLimit is a call whose body was over listen's limit and not
	// kept (capture.Record.BodyOverLimit): CheckRecord says so, on the
	// slow path.
	leanOverLimit
	// leanUnanswered is a call whose sender never got the answer
	// (capture.Record.Unanswered), rare: its member is type-checked on
	// the slow path. Its body is checked as any other (validate judges
	// payloads; what the sender got is listen's and inspect's to say).
	leanUnanswered
	leanFault
	leanDeliveries // an array of Delivery
	leanVersion    // the record's "capture": capture.Version
	leanEncoding   // queryEncoding, rawPath: absent, null or "" (else the slow path reads it)
)

type leanMember struct {
	name string
	kind leanKind
}

// The members of capture.Record, Response and Forward, by their JSON names.
var (
	leanRecordMembers = []leanMember{
		{"capture", leanVersion}, {"time", leanTime}, {"remote", leanString}, {"method", leanString},
		{"proto", leanString}, {"path", leanString}, {"rawPath", leanEncoding}, {"pathEncoding", leanEncoding}, {"query", leanString}, {"queryEncoding", leanEncoding},
		{"headers", leanHeader}, {"headerEncodings", leanStringMap}, {"body", leanString},
		{"bodyEncoding", leanString}, {"bodyOverLimit", leanOverLimit}, {"response", leanResponse},
		{"unanswered", leanUnanswered}, {"forward", leanForward}, {"rejected", leanRejected},
		{"fault", leanFault},
	}
	leanResponseMembers = []leanMember{
		{"status", leanInt}, {"headers", leanHeader}, {"body", leanString}, {"bodyEncoding", leanString},
	}
	leanForwardMembers = []leanMember{
		{"url", leanString}, {"status", leanInt}, {"headers", leanHeader}, {"body", leanString},
		{"bodyEncoding", leanString}, {"latencyMs", leanFloat}, {"error", leanString}, {"bodyCut", leanString},
	}
	leanFaultMembers = []leanMember{
		{"kind", leanString}, {"arg", leanString}, {"attempt", leanInt}, {"sender", leanString},
		{"receiver", leanString}, {"window", leanInt}, {"deliveries", leanDeliveries},
	}
	leanDeliveryMembers = []leanMember{
		{"requestId", leanString}, {"bytes", leanInt}, {"status", leanInt}, {"error", leanString},
		{"latencyMs", leanFloat},
	}
)

// leanGiveUp stops the lexer's pull when the fast path cannot vouch for a
// record; the record then takes the slow path.
type leanGiveUp struct{}

// leanFields are the members of a record validation reads, as the fast
// path read them: valid until the lexer's next Reset, the body until its
// buffer is reused.
type leanFields struct {
	query, body, bodyEncoding []byte
	// contentType is the request's first Content-Type value, when its
	// headers were an object (headers).
	contentType []byte
	headers     bool
	// declaredLength is the largest Content-Length the request's headers
	// declare, 0 for none.
	declaredLength int64
}

// leanRecord reads the members validation needs of a capture record line,
// the body unescaped into buf (from its start, with no allocation once buf
// holds it): ok is false when the slow path must read it instead. A line
// the lexer reads to its end is valid UTF-8 (the lexer refuses anything
// else), so nothing is left that encoding/json would replace.
func leanRecord(lx *jsonlex.Lexer, line, buf []byte) (f leanFields, ok bool) {
	lx.Reset(line)
	defer func() {
		if r := recover(); r != nil {
			if _, giveUp := r.(leanGiveUp); !giveUp {
				panic(r)
			}
			ok = false
		}
	}()
	err := lx.Run(func() {
		lx.Begin()
		if lx.Peek() != jsonlex.Object {
			panic(leanGiveUp{})
		}
		body := false // a record without "body" (or with null) is capture.Decode's to refuse
		if leanObject(lx, leanRecordMembers, func(name string) {
			switch name {
			case "body":
				f.body, body = lx.AppendStr(buf[:0]), true
				return
			case "headers":
				f.contentType, f.declaredLength = leanHeaders(lx, true)
				f.headers = true
				return
			}
			s, e, esc := lx.Str()
			switch name {
			case "method":
				if string(lx.Content(s, e, esc)) != http.MethodPost {
					// A method to judge, and a CONNECT's target to name:
					// capture.Decode's record says both.
					panic(leanGiveUp{})
				}
			case "query":
				f.query = lx.Content(s, e, esc)
				if !replayableQuery(f.query) {
					// A query replay refuses: capture.CheckReplayable,
					// on the slow path, says why.
					panic(leanGiveUp{})
				}
			case "bodyEncoding":
				f.bodyEncoding = lx.Content(s, e, esc)
			}
		})&1 == 0 || !body { // no "capture": not a record
			panic(leanGiveUp{})
		}
		if f.declaredLength > 0 && (f.declaredLength > int64(len(f.body)) || !isUTF8Encoding(f.bodyEncoding)) {
			// A body shorter than its Content-Length, which replay warns
			// of (capture.Record.ReplayWarning, on the slow path), or one
			// stored base64, whose length is the slow path's to measure.
			panic(leanGiveUp{})
		}
		lx.End()
	})
	return f, err == nil
}

// leanObject reads the object at the lexer's position against members;
// keep, when not nil, reads each of its string members (at the lexer's
// position), to keep or not. It returns the members seen, bit i for
// members[i].
func leanObject(lx *jsonlex.Lexer, members []leanMember, keep func(name string)) (seen uint32) {
	if !lx.Enter() {
		return 0
	}
	for first := true; ; first = false {
		k := lx.Key(first)
		i := leanFind(members, lx.KeyBytes(k))
		if i < 0 {
			lx.Skip(lx.Peek())
		} else {
			if seen&(1<<i) != 0 { // duplicates: encoding/json merges maps, keeps the last scalar
				panic(leanGiveUp{})
			}
			seen |= 1 << i
			leanValue(lx, members[i], keep)
		}
		if !lx.More('}') {
			return seen
		}
	}
}

// leanFind is the index of key among members, or -1 for a key
// encoding/json ignores. A key it would match by folding case (Body,
// or a non-ASCII letter that folds to an ASCII one) gives up.
func leanFind(members []leanMember, key []byte) int {
	for i, m := range members {
		if string(key) == m.name {
			return i
		}
	}
	for _, ch := range key {
		if ch >= utf8.RuneSelf {
			panic(leanGiveUp{})
		}
	}
	for _, m := range members {
		if len(key) == len(m.name) && asciiEqualFold(key, m.name) {
			panic(leanGiveUp{})
		}
	}
	return -1
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(ch byte) byte {
	if ch >= 'A' && ch <= 'Z' {
		return ch + 'a' - 'A'
	}
	return ch
}

// leanValue checks the value at the lexer's position against m; keep, when
// not nil, reads a string. null decodes to nothing, as encoding/json leaves
// the field as it was.
func leanValue(lx *jsonlex.Lexer, m leanMember, keep func(string)) {
	k := lx.Peek()
	if k == jsonlex.Null && m.kind != leanVersion {
		lx.Lit(k)
		return
	}
	if m.kind == leanRejected || m.kind == leanOverLimit || m.kind == leanUnanswered {
		panic(leanGiveUp{})
	}
	switch m.kind {
	case leanVersion:
		leanWant(k, jsonlex.Number)
		s, e, _, _ := lx.Num()
		if n, err := strconv.ParseInt(string(lx.Bytes()[s:e]), 10, 64); err != nil || n != capture.Version {
			panic(leanGiveUp{})
		}
	case leanEncoding:
		leanWant(k, jsonlex.String)
		if s, e, _ := lx.Str(); e-s != 2 {
			panic(leanGiveUp{})
		}
	case leanString:
		leanWant(k, jsonlex.String)
		if keep != nil {
			keep(m.name)
		} else {
			lx.Str()
		}
	case leanInt, leanFloat:
		leanWant(k, jsonlex.Number)
		s, e, _, _ := lx.Num()
		lit := string(lx.Bytes()[s:e])
		var err error
		if m.kind == leanInt {
			_, err = strconv.ParseInt(lit, 10, 64)
		} else {
			_, err = strconv.ParseFloat(lit, 64)
		}
		if err != nil {
			panic(leanGiveUp{})
		}
	case leanTime:
		leanWant(k, jsonlex.String)
		s, e, _ := lx.Str()
		if raw := lx.Bytes()[s:e]; !plainUTCTime(raw) {
			var t time.Time
			if t.UnmarshalJSON(raw) != nil {
				panic(leanGiveUp{})
			}
		}
	case leanStringMap: // headerEncodings: header values stored base64
		leanWant(k, jsonlex.Object)
		if lx.Enter() {
			panic(leanGiveUp{})
		}
	case leanHeader:
		leanWant(k, jsonlex.Object)
		if keep != nil {
			// The request's own headers: the record's reader reads them
			// (leanHeaders, request).
			keep(m.name)
			return
		}
		leanHeaders(lx, false)
	case leanResponse, leanForward, leanFault:
		leanWant(k, jsonlex.Object)
		members := leanResponseMembers
		switch m.kind {
		case leanForward:
			members = leanForwardMembers
		case leanFault:
			members = leanFaultMembers
		}
		leanObject(lx, members, nil)
	case leanDeliveries:
		leanWant(k, jsonlex.Array)
		if !lx.Enter() {
			return
		}
		for {
			if k := lx.Peek(); k == jsonlex.Null {
				lx.Lit(k)
			} else {
				leanWant(k, jsonlex.Object)
				leanObject(lx, leanDeliveryMembers, nil)
			}
			if !lx.More(']') {
				return
			}
		}
	}
}

// plainUTCTime says raw, a JSON string as written, is a time in the form
// listen writes, "2006-01-02T15:04:05.999999999Z" (the fraction optional,
// of any length), on a day every month has (01 to 28): one that
// time.Time.UnmarshalJSON, which capture.Decode calls, certainly accepts,
// read for some 200 instructions against its 1,400 (a date built and
// normalised). Anything else (the 29th to the 31st, an offset, an escape)
// is false and goes to UnmarshalJSON itself, whose answer decides.
// FuzzPlainUTCTime holds true to UnmarshalJSON's acceptance.
func plainUTCTime(raw []byte) bool {
	n := len(raw)
	if n < len(`"2006-01-02T15:04:05Z"`) || raw[0] != '"' || raw[n-2] != 'Z' || raw[n-1] != '"' {
		return false
	}
	t := raw[1:20:20] // 2006-01-02T15:04:05
	if t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' {
		return false
	}
	if max(t[0]-'0', t[1]-'0', t[2]-'0', t[3]-'0', t[5]-'0', t[6]-'0', t[8]-'0', t[9]-'0') > 9 ||
		max(t[11]-'0', t[12]-'0', t[14]-'0', t[15]-'0', t[17]-'0', t[18]-'0') > 9 {
		return false
	}
	month, day := (t[5]-'0')*10+t[6]-'0', (t[8]-'0')*10+t[9]-'0'
	hour, minute, second := (t[11]-'0')*10+t[12]-'0', (t[14]-'0')*10+t[15]-'0', (t[17]-'0')*10+t[18]-'0'
	if month-1 > 11 || day-1 > 27 || hour > 23 || minute > 59 || second > 59 {
		return false
	}
	frac := raw[20 : n-2]
	if len(frac) == 0 {
		return true
	}
	if len(frac) < 2 || frac[0] != '.' {
		return false
	}
	for _, ch := range frac[1:] {
		if ch-'0' > 9 {
			return false
		}
	}
	return true
}

// plainLength reads raw, a JSON string as written, when it holds 1 to 18
// ASCII digits and nothing else (a Content-Length as clients send it): the
// number strconv.ParseInt gives for it, without the copy into a string and
// the trimming. ok is false for anything else, which ParseInt then reads
// (FuzzPlainLength holds the two to the same number).
func plainLength(raw []byte) (n int64, ok bool) {
	if len(raw) < 3 || len(raw) > 20 {
		return 0, false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// leanHeaders checks a header map, whose names are compared regardless of
// case, as HTTP's (a name given twice gives up: capture.Decode refuses
// it). Past 32 names, more than a call carries, it gives up rather than
// keep a longer list. request says they are the request's own: then it
// returns the first value of Content-Type, named in any case (nil when
// there is none), as checkRecord reads it, and the largest value of
// Content-Length (0 for none), as capture.Record.CutShort reads it.
func leanHeaders(lx *jsonlex.Lexer, request bool) (contentType []byte, declared int64) {
	if !lx.Enter() {
		return nil, 0
	}
	var names [32]jsonlex.Key
	for n := 0; ; n++ {
		if n == len(names) {
			panic(leanGiveUp{})
		}
		names[n] = lx.Key(n == 0)
		name := lx.KeyBytes(names[n])
		if request && !headerToken(name) {
			// A name replay refuses (or one written with an escape):
			// capture.CheckReplayable, on the slow path, says why.
			panic(leanGiveUp{})
		}
		if request && bytes.EqualFold(name, []byte("Content-Encoding")) {
			// The request's body is compressed (or says so): CheckRecord
			// decodes it.
			panic(leanGiveUp{})
		}
		for _, before := range names[:n] {
			if bytes.EqualFold(lx.KeyBytes(before), name) {
				panic(leanGiveUp{})
			}
		}
		if request && len(name) == len("Content-Type") && asciiEqualFold(name, "Content-Type") {
			contentType = leanFirstString(lx, true)
		} else if request && len(name) == len("Content-Length") && asciiEqualFold(name, "Content-Length") {
			declared = leanLargestLength(lx)
		} else if request {
			leanFirstString(lx, true)
		} else {
			leanStrings(lx)
		}
		if !lx.More('}') {
			return contentType, declared
		}
	}
}

// leanLargestLength checks a request's Content-Length values as
// leanFirstString does and returns the largest that reads as a number
// (capture.Record.CutShort's reading), 0 for none.
func leanLargestLength(lx *jsonlex.Lexer) (largest int64) {
	k := lx.Peek()
	if k == jsonlex.Null {
		lx.Lit(k)
		return 0
	}
	leanWant(k, jsonlex.Array)
	if !lx.Enter() {
		return 0
	}
	for {
		leanWant(lx.Peek(), jsonlex.String)
		s, e, esc := lx.Str()
		if !replayableValue(lx.Bytes()[s:e], esc) {
			panic(leanGiveUp{})
		}
		if n, ok := plainLength(lx.Bytes()[s:e]); ok {
			largest = max(largest, n)
		} else if n, err := strconv.ParseInt(string(bytes.TrimSpace(lx.Content(s, e, esc))), 10, 64); err == nil && n > largest {
			largest = n
		}
		if !lx.More(']') {
			return largest
		}
	}
}

// isUTF8Encoding says whether a record's bodyEncoding stores the body as
// it came (utf8, or none named).
func isUTF8Encoding(enc []byte) bool { return len(enc) == 0 || string(enc) == capture.UTF8 }

// leanFirstString checks a header's values as leanStrings does and returns
// the first (nil when there is none). request says they are the
// request's own: a value replay refuses (a control character but a tab)
// gives up, for capture.CheckReplayable on the slow path to say why.
func leanFirstString(lx *jsonlex.Lexer, request bool) (first []byte) {
	k := lx.Peek()
	if k == jsonlex.Null {
		lx.Lit(k)
		return nil
	}
	leanWant(k, jsonlex.Array)
	if !lx.Enter() {
		return nil
	}
	for i := 0; ; i++ {
		leanWant(lx.Peek(), jsonlex.String)
		s, e, esc := lx.Str()
		if i == 0 {
			first = lx.Content(s, e, esc)
		}
		if request && !replayableValue(lx.Bytes()[s:e], esc) {
			panic(leanGiveUp{})
		}
		if !lx.More(']') {
			return first
		}
	}
}

// leanStrings checks a header's values: null, or an array of strings.
func leanStrings(lx *jsonlex.Lexer) {
	k := lx.Peek()
	if k == jsonlex.Null {
		lx.Lit(k)
		return
	}
	leanWant(k, jsonlex.Array)
	if !lx.Enter() {
		return
	}
	for {
		leanValue(lx, leanMember{kind: leanString}, nil)
		if !lx.More(']') {
			return
		}
	}
}

func leanWant(got, want jsonlex.Kind) {
	if got != want {
		panic(leanGiveUp{})
	}
}

// replayableQuery says whether replay sends a query as it is: no space,
// control character or DEL (capture.CheckReplayable's rule).
func replayableQuery(q []byte) bool {
	for _, c := range q {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// headerToken says whether a header name, as its key was written, is a
// token replay sends (capture.CheckReplayable's rule); an escape's
// backslash is none, which sends such a name to the slow path.
func headerToken(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		m := uint64(tokenLow)
		if c >= 64 {
			m = tokenHigh
		}
		if c >= 128 || m>>(c&63)&1 == 0 {
			return false
		}
	}
	return true
}

// tokenLow and tokenHigh mark the bytes of an HTTP token (letters, digits
// and !#$%&'*+-.^_`|~), bit c of tokenLow for c under 64, bit c-64 of
// tokenHigh above: one test a byte in place of up to six comparisons and
// a search (TestHeaderTokenEveryByte holds them to that definition).
const (
	tokenLow  = 0x03ff6cfa00000000
	tokenHigh = 0x57ffffffc7fffffe
)

// replayableValue says whether a header value, its string as written
// (raw), holds no byte replay refuses: a control character but a tab, or
// DEL. JSON writes every control character escaped, so a value without
// escapes can hold only DEL; one with escapes is given up on when it
// escapes anything but a quote, a backslash or a slash, cheaper than
// decoding it, for the slow path to judge.
func replayableValue(raw []byte, esc bool) bool {
	if bytes.IndexByte(raw, 0x7f) >= 0 {
		return false
	}
	if !esc {
		return true
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' {
			i++
			if i < len(raw) && raw[i] != '"' && raw[i] != '\\' && raw[i] != '/' {
				return false
			}
		}
	}
	return true
}
