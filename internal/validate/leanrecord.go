package validate

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/jsonlex"
)

// The fast path of capture records. Decoding a record with encoding/json
// built every header map and took two thirds of validate's CPU on a
// capture (docs/performance.md); validation reads four strings of it. So
// a record is first read with the lexer, which type-checks every member
// encoding/json would decode into capture.Record and keeps only the four.
// Anything it is not sure encoding/json would read the same way (a member
// of the wrong type, a duplicate or case-folded key, a bad time) makes it
// give up, and the record takes the slow path, whose error messages are
// the ones users have always seen. FuzzLeanRecord holds the two to the
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
)

type leanMember struct {
	name string
	kind leanKind
}

// The members of capture.Record, Response and Forward, by their JSON names.
var (
	leanRecordMembers = []leanMember{
		{"capture", leanInt}, {"time", leanTime}, {"remote", leanString}, {"method", leanString},
		{"path", leanString}, {"query", leanString}, {"queryEncoding", leanString},
		{"headers", leanHeader}, {"headerEncodings", leanStringMap}, {"body", leanString},
		{"bodyEncoding", leanString}, {"response", leanResponse}, {"forward", leanForward},
		{"rejected", leanRejected},
	}
	leanResponseMembers = []leanMember{
		{"status", leanInt}, {"headers", leanHeader}, {"body", leanString}, {"bodyEncoding", leanString},
	}
	leanForwardMembers = []leanMember{
		{"url", leanString}, {"status", leanInt}, {"headers", leanHeader}, {"body", leanString},
		{"bodyEncoding", leanString}, {"latencyMs", leanFloat}, {"error", leanString},
	}
)

// leanGiveUp stops the lexer's pull when the fast path cannot vouch for a
// record; the record then takes the slow path.
type leanGiveUp struct{}

// leanFields are the members of a record validation reads, as the fast
// path read them: valid until the lexer's next Reset, the body until its
// buffer is reused.
type leanFields struct {
	query, queryEncoding, body, bodyEncoding []byte
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
		leanObject(lx, leanRecordMembers, func(name string) {
			if name == "body" {
				f.body = lx.AppendStr(buf[:0])
				return
			}
			s, e, esc := lx.Str()
			switch name {
			case "query":
				f.query = lx.Content(s, e, esc)
			case "queryEncoding":
				f.queryEncoding = lx.Content(s, e, esc)
			case "bodyEncoding":
				f.bodyEncoding = lx.Content(s, e, esc)
			}
		})
		lx.End()
	})
	return f, err == nil
}

// leanObject reads the object at the lexer's position against members;
// keep, when not nil, reads each of its string members (at the lexer's
// position), to keep or not.
func leanObject(lx *jsonlex.Lexer, members []leanMember, keep func(name string)) {
	if !lx.Enter() {
		return
	}
	var seen uint32
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
			return
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
	if k == jsonlex.Null {
		lx.Lit(k)
		return
	}
	if m.kind == leanRejected {
		panic(leanGiveUp{})
	}
	switch m.kind {
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
		var t time.Time
		if t.UnmarshalJSON(lx.Bytes()[s:e]) != nil {
			panic(leanGiveUp{})
		}
	case leanHeader, leanStringMap:
		leanWant(k, jsonlex.Object)
		if !lx.Enter() {
			return
		}
		for first := true; ; first = false {
			k := lx.Key(first)
			if keep != nil && m.kind == leanHeader && string(lx.KeyBytes(k)) == "Content-Encoding" {
				// The request's body is compressed (or says so): CheckRecord
				// decodes it.
				panic(leanGiveUp{})
			}
			if m.kind == leanHeader {
				leanStrings(lx)
			} else {
				leanValue(lx, leanMember{kind: leanString}, nil)
			}
			if !lx.More('}') {
				return
			}
		}
	case leanResponse, leanForward:
		leanWant(k, jsonlex.Object)
		members := leanResponseMembers
		if m.kind == leanForward {
			members = leanForwardMembers
		}
		leanObject(lx, members, nil)
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
