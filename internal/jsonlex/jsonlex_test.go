package jsonlex

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/termsafe"
)

// pathString renders a Walk path for the tests: a.b[0]["c d"].
func pathString(p []Seg) string {
	var sb strings.Builder
	for _, s := range p {
		if s.Index >= 0 {
			sb.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		sb.WriteString("." + strconv.Quote(s.Key))
	}
	return sb.String()
}

// TestWalkSpans: for a path, b[Start:End] is exactly the value's text in
// the original bytes (what anonymize replaces), whatever the keys' escapes,
// the nesting and the characters.
func TestWalkSpans(t *testing.T) {
	t.Parallel()
	doc := "\r\n{ \"requestId\" : \"9424f8a8-0aa8\" ,\n" +
		` "data": {"\u6536\u6b3e\u5355": {"客户名称": {"name":"温州锦程\ud83d\ude00","code" :"C\"1\\"}},` +
		` "items": [ [1, -2.5e3, [ ]], {"a\/b": null, "tab\tkey": true} , "x"],` +
		` "": {}, "dup": 1, "dup": "二"}}` + "\n"
	want := map[string]string{
		``:             doc[2 : len(doc)-1],
		`."requestId"`: `"9424f8a8-0aa8"`,
		`."data"."收款单"."客户名称"."name"`:   `"温州锦程\ud83d\ude00"`,
		`."data"."收款单"."客户名称"."code"`:   `"C\"1\\"`,
		`."data"."收款单"."客户名称"`:          `{"name":"温州锦程\ud83d\ude00","code" :"C\"1\\"}`,
		`."data"."items"[0]`:            `[1, -2.5e3, [ ]]`,
		`."data"."items"[0][1]`:         `-2.5e3`,
		`."data"."items"[0][2]`:         `[ ]`,
		`."data"."items"[1]."a/b"`:      `null`,
		`."data"."items"[1]."tab\tkey"`: `true`,
		`."data"."items"[2]`:            `"x"`,
		`."data".""`:                    `{}`,
		`."data"."dup"`:                 `"二"`, // the last visit wins in this map
	}
	got := map[string]string{}
	kinds := map[string]Kind{}
	dups := 0
	err := Walk([]byte(doc), func(p []Seg, v Value) {
		got[pathString(p)] = doc[v.Start:v.End]
		kinds[pathString(p)] = v.Kind
		if v.Dup {
			dups++
			if pathString(p) != `."data"."dup"` || doc[v.Start:v.End] != `"二"` {
				t.Errorf("duplicate at %s %s", pathString(p), doc[v.Start:v.End])
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("span of %s = %q, want %q", p, got[p], w)
		}
	}
	if dups != 1 {
		t.Errorf("%d duplicates, want 1", dups)
	}
	if kinds[`."data"."items"`] != Array || kinds[`."data"."items"[1]."a/b"`] != Null || kinds[`."data"."items"[0][1]`] != Number {
		t.Errorf("kinds %v", kinds)
	}
	// Replacing every string leaf by its span keeps a valid document.
	var out []byte
	last := 0
	if err := Walk([]byte(doc), func(p []Seg, v Value) {
		if v.Kind == String && len(p) > 0 {
			out = append(out, doc[last:v.Start]...)
			out = append(out, `"***"`...)
			last = v.End
		}
	}); err != nil {
		t.Fatal(err)
	}
	out = append(out, doc[last:]...)
	if !json.Valid(out) || strings.Contains(string(out), "温州") || !strings.Contains(string(out), `"requestId" : "***"`) {
		t.Errorf("replaced: %s", out)
	}
}

func TestWalkError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc       string
		off       int
		msg       string
		line, col int
	}{
		{``, 0, "the body is empty", 1, 1},
		{"\ufeff{}", 0, "byte-order mark", 1, 1},
		// UTF-16 with its byte-order mark, as Windows PowerShell 5's >
		// writes a file: named, not an invalid UTF-8 byte.
		{"\xff\xfe{\x00}\x00", 0, "the body is UTF-16 (it starts with the byte-order mark FF FE)", 1, 1},
		{"\xfe\xff\x00{\x00}", 0, "the body is UTF-16 (it starts with the byte-order mark FE FF)", 1, 1},
		{"\xff\xfe\x00\x00{\x00\x00\x00", 0, "the body is UTF-32 (it starts with the byte-order mark FF FE 00 00)", 1, 1},
		{" \n ", 3, "only whitespace", 2, 2},
		{`{"a":1,}`, 7, "trailing comma before '}'", 1, 8},
		{`[1,]`, 3, "trailing comma before ']'", 1, 4},
		{"{\"收\":NaN}", 7, "NaN and Infinity", 1, 6},
		{`{'a':1}`, 1, "single quotes", 1, 2},
		// A number that goes on where JSON ends it (a code or a date
		// written without its quotes) is named whole, from its start.
		{`{"a":01}`, 5, "not a JSON number: 01 (JSON numbers have no leading zeros; text such as a code or a date goes in double quotes)", 1, 6},
		{`{"staffCode":0038}`, 13, "not a JSON number: 0038 (JSON numbers have no leading zeros;", 1, 14},
		{`{"a":-0038}`, 5, "not a JSON number: -0038 (JSON numbers have no leading zeros;", 1, 6},
		{`{"itemCode":29.01.27.01}`, 12, "not a JSON number: 29.01.27.01 (text such as a code", 1, 13},
		{`{"收":2026-10-08}`, 7, "not a JSON number: 2026-10-08 (text such as a code", 1, 6},
		{`[0x1F]`, 1, "not a JSON number: 0x1F (text such as a code", 1, 2},
		{`[1e5x]`, 1, "not a JSON number: 1e5x (text such as a code", 1, 2},
		{`{"a":-x}`, 6, "a number needs a digit after its minus sign: unexpected character 'x'", 1, 7},
		{`{"a":-Infinity}`, 5, "NaN and Infinity", 1, 6},
		// A word no JSON value starts with (Python's True and None,
		// JavaScript's undefined, plain text) is named whole too.
		{`{"a":True}`, 5, `not a JSON value: the bare word "True"`, 1, 6},
		{`{"a":None}`, 5, `not a JSON value: the bare word "None"`, 1, 6},
		{`[undefined]`, 1, `not a JSON value: the bare word "undefined"`, 1, 2},
		{"hello world", 0, `not a JSON value: the bare word "hello"`, 1, 1},
		{`{"a":1.}`, 7, "digits after its decimal point", 1, 8},
		{"{\"a\":\"\t\"}", 6, "control character 0x09", 1, 7},
		{"{\"a\":\"\xff\"}", 6, "invalid UTF-8 byte 0xff", 1, 7},
		// Three-byte sequences: an overlong form, a surrogate, a bad or
		// missing continuation byte.
		{"{\"a\":\"\xe0\x80\x80\"}", 6, "invalid UTF-8 byte 0xe0", 1, 7},
		{"{\"a\":\"\xed\xa0\x80\"}", 6, "invalid UTF-8 byte 0xed", 1, 7},
		{"{\"a\":\"收\xe4\xb8\x41\"}", 9, "invalid UTF-8 byte 0xe4", 1, 8},
		{"{\"a\":\"\xe4\xb8", 6, "invalid UTF-8 byte 0xe4", 1, 7},
		{"{\"a\":\"\\\x1b\"}", 6, `invalid escape \\x1b`, 1, 7},
		{`{"a":"\u12g4"}`, 10, `invalid \u escape: want four hex digits: unexpected character 'g'`, 1, 11},
		// What follows \u is named as a character, never as the start of
		// a value: NaN, a quote or a slash there is no NaN, single quotes
		// or a comment.
		{`{"a":"\uNaN5"}`, 8, `invalid \u escape: want four hex digits: unexpected character 'N'`, 1, 9},
		{`{"a":"\u'abc"}`, 8, `invalid \u escape: want four hex digits: unexpected character '\''`, 1, 9},
		{`{"a":"\u/abc"}`, 8, `invalid \u escape: want four hex digits: unexpected character '/'`, 1, 9},
		{`{"a":1} x`, 8, "trailing data", 1, 9},
		{`{"a":[1,2`, 9, "truncated", 1, 10},
		// The bracket that opens level MaxDepth+1 is the one named, as
		// every other error names the byte at fault.
		{strings.Repeat("[", MaxDepth+1), MaxDepth, "nesting deeper than 10000", 1, MaxDepth + 1},
		{`{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "}", MaxDepth + 4, "nesting deeper than 10000", 1, MaxDepth + 5},
		// A broken literal: the first byte that is not the literal's, and
		// which literal was being read (the 't' itself was fine).
		{`{"a": tru}`, 9, "want true: unexpected character '}'", 1, 10},
		{`{"a": nul }`, 9, "want null: unexpected character ' '", 1, 10},
		{"{\"a\":[fals", 10, "want false: unexpected end of input", 1, 11},
		{`{"a":tx}`, 5, `not a JSON value: the bare word "tx" (only null, true and false go without quotes; a string needs double quotes)`, 1, 6},
		{"not json\n", 0, `not a JSON value: the bare word "not" (only null, true and false go without quotes; a string needs double quotes)`, 1, 1},
		{`[nulll]`, 1, `not a JSON value: the bare word "nulll" (only null, true and false go without quotes; a string needs double quotes)`, 1, 2},
	}
	for _, tt := range tests {
		err := Walk([]byte(tt.doc), func([]Seg, Value) {})
		se, ok := err.(*syntaxError)
		if !ok {
			t.Errorf("%q: error %v, want a *SyntaxError", tt.doc, err)
			continue
		}
		if se.Offset != tt.off || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("%q: %v, want offset %d and %q", tt.doc, se, tt.off, tt.msg)
		}
		if l, c := Position([]byte(tt.doc), se.Offset); l != tt.line || c != tt.col {
			t.Errorf("%q: line %d column %d, want %d %d", tt.doc, l, c, tt.line, tt.col)
		}
	}
}

// TestMembers: every top-level member of the name, the duplicates a
// reader may take instead of the first among them.
func TestMembers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		doc  string
		want []string
		ok   bool
	}{
		{`{"requestId":"abc","businessType":5007}`, []string{"5007"}, true},
		{`{"businessType":1,"data":{"businessType":2},"b\u0075sinessType":[3]}`, []string{"1", "[3]"}, true},
		{`{"a":1}`, nil, true},
		{`{"businessType":1, broken "businessType":2}`, []string{"1"}, false},
		{`["businessType"]`, nil, false},
	} {
		spans, ok := Members([]byte(tt.doc), "businessType")
		var got []string
		for _, sp := range spans {
			got = append(got, tt.doc[sp.Start:sp.End])
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || ok != tt.ok {
			t.Errorf("Members(%q) = %q %v, want %q %v", tt.doc, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc, name string
		want      string // the value's text; "" for not found
		kind      Kind
	}{
		{`{"requestId":"abc","businessType":5007}`, "requestId", `"abc"`, String},
		{`{"requestId":"abc","businessType":5007}`, "businessType", `5007`, Number},
		{` { "data" : {"requestId":"inner"} , "requestId" : "a\"b" } `, "requestId", `"a\"b"`, String},
		{`{"request\u0049d":null}`, "requestId", `null`, Null},
		{`{"requestId":{"x":[1]}}`, "requestId", `{"x":[1]}`, Object},
		{`{"requestId":"first","requestId":"second"}`, "requestId", `"first"`, String},
		{`{"requestId":"ok"} trailing garbage`, "requestId", `"ok"`, String},
		{`{"requestId":"ok", broken`, "requestId", `"ok"`, String},
		{`{"a":1, broken "requestId":"x"}`, "requestId", "", 0},
		{`{"a":1}`, "requestId", "", 0},
		{`["requestId"]`, "requestId", "", 0},
		{`{}`, "requestId", "", 0},
		{``, "requestId", "", 0},
		{"\ufeff{\"requestId\":\"x\"}", "requestId", "", 0},
	}
	for _, tt := range tests {
		sp, ok := Member([]byte(tt.doc), tt.name)
		got := ""
		if ok {
			got = tt.doc[sp.Start:sp.End]
		}
		if got != tt.want || ok && sp.Kind != tt.kind {
			t.Errorf("Member(%q, %q) = %q %v, want %q %v", tt.doc, tt.name, got, sp.Kind, tt.want, tt.kind)
		}
	}
}

// TestMemberAnyBytes: Member's spans, and a string's byte that is not
// UTF-8 read past where Member stops at it; any other error stays one.
func TestMemberAnyBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ doc, want string }{
		{`{"requestId":"abc","businessType":5007}`, `"abc"`},
		{"{\"requestId\":\"ab\xffcd\"}", "\"ab\xffcd\""},
		{"{\"x\":\"caf\xe9\",\"requestId\":\"b\"}", `"b"`},
		{"{\"k\xc3\":1,\"requestId\":\"b\"}", `"b"`},
		{"{\"requestId\":\"a\x01\"}", ""},
		{"{\xff\"requestId\":\"a\"}", ""},
		{"{\"requestId\":\xff}", ""},
	} {
		if _, ok := Member([]byte(tt.doc), "requestId"); ok && !utf8.ValidString(tt.doc) {
			t.Errorf("Member(%q) found a member in a document that is not UTF-8", tt.doc)
		}
		sp, ok := MemberAnyBytes([]byte(tt.doc), "requestId")
		got := ""
		if ok {
			got = tt.doc[sp.Start:sp.End]
		}
		if got != tt.want {
			t.Errorf("MemberAnyBytes(%q) = %q, want %q", tt.doc, got, tt.want)
		}
		spans, _ := MembersAnyBytes([]byte(tt.doc), "requestId")
		if (len(spans) > 0) != (tt.want != "") || len(spans) > 0 && tt.doc[spans[0].Start:spans[0].End] != tt.want {
			t.Errorf("MembersAnyBytes(%q) = %v, want %q", tt.doc, spans, tt.want)
		}
	}
}

func BenchmarkMember(b *testing.B) {
	first := []byte(`{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007,"data":{"收款单":{"编号":"1"}}}`)
	later := []byte(`{"businessType":5007,"data":{"收款单":{"编号":"1","客户名称":{"name":"温州锦程"}}},"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4"}`)
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"first", first}, {"last", later}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := Member(c.doc, "requestId"); !ok {
					b.Fatal("not found")
				}
			}
		})
	}
}

// FuzzWalk: the lexer agrees with encoding/json on what is JSON (for
// valid UTF-8 without a byte-order mark, within the depth limit), every
// span it reports is itself a JSON value of its kind, a string's content
// decodes as encoding/json decodes it, and its messages are terminal-safe.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, `[1,]`, `{"a":1,"a":2}`, "\"\\\x1b\"", `-0.0e-5`, `"\ud800"`, "{\"收\":\"款\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var l Lexer
		top := map[string]Span{} // the first value of each top-level key
		err := Walk(b, func(p []Seg, v Value) {
			if len(p) == 1 && p[0].Index < 0 && !v.Dup {
				top[p[0].Key] = v.Span
			}
			if v.Start < 0 || v.End > len(b) || v.Start >= v.End {
				t.Fatalf("span %d:%d of %d bytes", v.Start, v.End, len(b))
			}
			text := b[v.Start:v.End]
			if !json.Valid(text) {
				t.Fatalf("span %q at %s is not JSON", text, pathString(p))
			}
			if v.Kind == String {
				var want string
				if err := json.Unmarshal(text, &want); err != nil {
					t.Fatal(err)
				}
				l.Reset(b)
				var got []byte
				if err := l.Run(func() {
					l.i = v.Start
					s, e, esc := l.Str()
					got = l.Content(s, e, esc)
				}); err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Fatalf("content %q, encoding/json %q", got, want)
				}
			}
		})
		if err != nil {
			se := err.(*syntaxError)
			if se.Offset < 0 || se.Offset > len(b) || !termsafe.Safe(se.Msg) {
				t.Fatalf("error %q at %d of %d bytes", se.Msg, se.Offset, len(b))
			}
		}
		if err == nil {
			for k, want := range top {
				if got, ok := Member(b, k); !ok || got != want {
					t.Fatalf("Member(%q) = %v %v, Walk saw %v", k, got, ok, want)
				}
			}
		}
		if utf8.Valid(b) && !strings.HasPrefix(string(b), "\ufeff") && depth(b) < MaxDepth {
			if want := json.Valid(b); want != (err == nil) {
				t.Fatalf("Walk error %v, but json.Valid says %v", err, want)
			}
		}
	})
}

// depth is an upper bound of the nesting depth of b.
func depth(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '[' || c == '{' {
			n++
		}
	}
	return n
}

// FuzzFloat: Float reads what strconv.ParseFloat reads, bit for bit.
func FuzzFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "198306.44", "1700000000000", "0.1", "-12.5", "123456789012345", "1234567890123456", "1e5", "0.000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		var l Lexer
		l.Reset(b)
		isNum := false
		if err := l.Run(func() {
			if isNum = l.Peek() == Number; isNum {
				l.Num()
			}
		}); err != nil || !isNum || l.Pos() != len(b) {
			return // not one JSON number
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatal(err)
		}
		if got := l.Float(0, len(b)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Float(%q) = %v, strconv %v", s, got, want)
		}
	})
}

// FuzzAppendStr holds AppendStr to Str and Content: the same value, the
// same position after it, the same error.
func FuzzAppendStr(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\ud83d\ude00\ud800"`, "\"收款单\\\"x\\\"\"",
		"\"\x1f\"", "\"\xff\"", "\"\xe4\xb8\"", `"\x"`, `"abc`, `"a\`, `"\u12"`, "\"\xed\xa0\x80\"", "\"\xf0\x9f\x98\x80\" tail"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, prefix int) {
		if len(b) == 0 || b[0] != '"' {
			b = append([]byte{'"'}, b...)
		}
		prefix = prefix & 15
		var want, got []byte
		var wantEnd, gotEnd int
		var l Lexer
		l.Reset(b)
		wantErr := l.Run(func() {
			s, e, esc := l.Str()
			want, wantEnd = append(make([]byte, prefix), l.Content(s, e, esc)...), l.Pos()
		})
		l.Reset(b)
		gotErr := l.Run(func() {
			got, gotEnd = l.AppendStr(make([]byte, prefix, prefix+1)), l.Pos()
		})
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && *wantErr != *gotErr {
			t.Fatalf("AppendStr error %v, Str's %v", gotErr, wantErr)
		}
		if wantErr == nil && (string(got) != string(want) || gotEnd != wantEnd) {
			t.Fatalf("AppendStr %q ending at %d, Str and Content %q ending at %d", got, gotEnd, want, wantEnd)
		}
	})
}

// FuzzResetUTF8 holds a lexer started by ResetUTF8 to one started by
// Reset on every valid UTF-8 document: the same strings, the same
// position after each value, the same error.
func FuzzResetUTF8(f *testing.F) {
	for _, s := range []string{`{"收款单":{"单据编号":"SKD-1","a\"b":[1,"\u00e9"]}}`, "[\"\x1f\"]", `{"a":"b\x"}`,
		`["\ud800", "温州锦程\ud83d\ude00"]`, `{"a":"abc`, "\"\xe4\xb8\xad\xf0\x9f\x98\x80\" x", `"tab	in"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !utf8.Valid(b) || depth(b) >= MaxDepth {
			return
		}
		read := func(reset func(*Lexer, []byte)) (vals []string, err *syntaxError) {
			var l Lexer
			reset(&l, b)
			var value func()
			value = func() {
				switch k := l.Peek(); k {
				case Object:
					if !l.Enter() {
						return
					}
					for first := true; ; first = false {
						key := l.Key(first)
						vals = append(vals, "key "+string(l.KeyBytes(key)))
						value()
						if !l.More('}') {
							return
						}
					}
				case Array:
					if !l.Enter() {
						return
					}
					for {
						value()
						if !l.More(']') {
							return
						}
					}
				case String:
					s, e, esc := l.Str()
					vals = append(vals, string(l.Content(s, e, esc))+"@"+strconv.Itoa(l.Pos()))
				default:
					l.Skip(k)
					vals = append(vals, "@"+strconv.Itoa(l.Pos()))
				}
			}
			err = l.Run(func() {
				l.Begin()
				value()
				l.End()
			})
			return vals, err
		}
		want, wantErr := read((*Lexer).Reset)
		got, gotErr := read((*Lexer).ResetUTF8)
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && *wantErr != *gotErr {
			t.Fatalf("ResetUTF8 error %v, Reset's %v", gotErr, wantErr)
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("ResetUTF8 read %q, Reset %q", got, want)
		}
	})
}

// TestStops holds the word-wise look for the bytes Str stops at to a
// byte-by-byte one: the lowest mark is the first quote, backslash or
// control byte, whatever comes before and after it (borrows included).
func TestStops(t *testing.T) {
	stop := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	backgrounds := []byte{'a', ' ', '~', 0x7f, 0x80, 0xe4, 0xff, '!', '#', '[', ']', 0x21, 0x1f, 0}
	for _, bg := range backgrounds {
		for pos := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = bg
				}
				w[pos] = byte(c)
				want := 8
				for i, b := range w {
					if stop(b) {
						want = i
						break
					}
				}
				got := 8
				if m := stops(binary.LittleEndian.Uint64(w[:])); m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != want {
					t.Fatalf("stops(% x): first at %d, want %d", w, got, want)
				}
			}
		}
	}
}

// TestPositionLineEnds: a line ends at LF, at CRLF and at a lone CR, as
// editors count them: a file saved with CR-only line ends (classic Mac
// OS) is not one long line, and CRLF is one line end, not two.
func TestPositionLineEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		doc       string
		off       int
		line, col int
	}{
		{"{\n\"a\":1}", 2, 2, 1},
		{"{\r\n\"a\":1}", 3, 2, 1},
		{"{\r\"a\":1}", 2, 2, 1},
		{"{\r\r\"a\":1}", 3, 3, 1},
		{"{\r\n\r\n\"a\":1}", 5, 3, 1},
		{"{\n\r\"a\":1}", 3, 3, 1},
		// Between CR and LF the line has not ended yet.
		{"{\r\n\"a\":1}", 1, 1, 2},
		{"{\"a\":\r2}", 5, 1, 6},
		{"{\"a\":\r2}", 6, 2, 1},
	} {
		if line, col := Position([]byte(tt.doc), tt.off); line != tt.line || col != tt.col {
			t.Errorf("%q at %d: line %d, column %d; want %d, %d", tt.doc, tt.off, line, col, tt.line, tt.col)
		}
	}
	// Increasing offsets through one counter, a CRLF split between calls.
	lc := LineCounter{B: []byte("{\r\n\"a\":\r1}")}
	for _, want := range [][3]int{{1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {8, 3, 1}} {
		if line, col := lc.At(want[0]); line != want[1] || col != want[2] {
			t.Errorf("counter at %d: line %d, column %d; want %d, %d", want[0], line, col, want[1], want[2])
		}
	}
}

// keyRead is what reading a key at the start of b leaves: the key's bytes,
// where the lexer stands after it, and the error, if any.
type keyRead struct {
	key string
	pos int
	err string
}

func readKey(b []byte, name string, is bool) (r keyRead, matched bool) {
	var l Lexer
	l.Reset(b)
	if err := l.Run(func() {
		var k Key
		if is {
			if k, matched = l.KeyIs(name); !matched {
				r.pos = l.Pos()
				return
			}
		} else {
			k = l.Key(true)
		}
		r.key, r.pos = string(l.KeyBytes(k)), l.Pos()
	}); err != nil {
		// KeyIs fails only after a match: its error is Key's.
		r.err, matched = err.Error(), is
	}
	return r, matched
}

func TestKeyIs(t *testing.T) {
	for _, tc := range []struct {
		b, name string
		match   bool
	}{
		{`"收款单" : {`, "收款单", true},
		{`"收款单":1`, "收款单", true},
		// What follows the colon, read to the value as Key reads it.
		{`"code": "x"`, "code", true},
		{`"code":  1`, "code", true},
		{"\"code\": \n  1", "code", true},
		{"\"code\":\t 1", "code", true},
		{`"code": `, "code", true},
		{`"code":`, "code", true},
		{`"code" :1`, "code", true},
		{"\"code\"\n: 1", "code", true},
		{`"收款单x":1`, "收款单", false},
		{`"收款":1`, "收款单", false},
		{`"\u6536款单":1`, "收款单", false}, // escaped: Key reads it
		{`"code"`, "code", true},       // then Key's own error: no colon
		{`"code`, "code", false},
		{`code":1`, "code", false},
		{``, "code", false},
		{`"":1`, "", true},
	} {
		got, matched := readKey([]byte(tc.b), tc.name, true)
		if matched != tc.match {
			t.Errorf("KeyIs(%q) in %q matched %v, want %v", tc.name, tc.b, matched, tc.match)
			continue
		}
		if !matched {
			if got.pos != 0 || got.err != "" {
				t.Errorf("KeyIs(%q) in %q read to %d (%s) without a match", tc.name, tc.b, got.pos, got.err)
			}
			continue
		}
		if want, _ := readKey([]byte(tc.b), "", false); got != want {
			t.Errorf("KeyIs(%q) in %q = %+v, Key %+v", tc.name, tc.b, got, want)
		}
	}
	// Every length the comparison takes a word or two at (4 to 16 bytes)
	// and either side of them, differing in one byte anywhere: the first,
	// the last, one only the overlapping words share, and one in between.
	const text = "abcdefghijklmnopqrstu"
	for n := 0; n <= len(text); n++ {
		name := text[:n]
		if _, matched := readKey([]byte(`"`+name+`" : 1`), name, true); !matched {
			t.Errorf("KeyIs(%q) did not match itself", name)
		}
		for j := 0; j < n; j++ {
			other := name[:j] + "_" + name[j+1:]
			if got, matched := readKey([]byte(`"`+other+`":1`), name, true); matched || got.pos != 0 {
				t.Errorf("KeyIs(%q) matched %q", name, other)
			}
		}
	}
	for name, plain := range map[string]bool{"收款单": true, "code": true, "a\"b": false, "a\\b": false, "a\nb": false, "\xff": false} {
		if PlainKey(name) != plain {
			t.Errorf("PlainKey(%q) = %v", name, !plain)
		}
	}
}

// FuzzKeyIs: KeyIs, given a plain key, matches exactly when Key would read
// that key from the same bytes without an escape, and then reads what Key
// reads, to the same place with the same error; without a match it reads
// nothing.
func FuzzKeyIs(f *testing.F) {
	f.Add([]byte(`"收款单":{}`), "收款单")
	f.Add([]byte(`"code" :`), "code")
	f.Add([]byte(`"co\u0064e":1`), "code")
	f.Add([]byte(`"code"`), "code")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		if !PlainKey(name) {
			return
		}
		got, matched := readKey(b, name, true)
		want, _ := readKey(b, "", false)
		escaped := bytes.HasPrefix(b, []byte(`"`)) && !bytes.HasPrefix(b[1:], []byte(name+`"`))
		if !matched {
			if got.pos != 0 || got.err != "" {
				t.Fatalf("no match, yet read to %d (%s)", got.pos, got.err)
			}
			if want.key == name && !escaped && want.err == "" {
				t.Fatalf("Key read %q unescaped, KeyIs did not match", name)
			}
			return
		}
		if got != want {
			t.Fatalf("KeyIs %+v, Key %+v", got, want)
		}
	})
}

// FuzzPlainNum holds PlainNum to Num and Float: where it reads a number it
// ends where Num ends, its value is Float's bit for bit, frac and neg say
// what the text says; where Num reads a plain number of up to 15 digits
// PlainNum reads it too; and where it refuses, it has read nothing.
func FuzzPlainNum(f *testing.F) {
	for _, s := range []string{"0", "-0", "198306.44", "1700000000000", "0.10", "-12.5", "123456789012345", "1234567890123456",
		"1e5", "1.5E3", "0.000000000000001", "01", "1.", "-", "-x", "5007,", "12.50}", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		var p, l Lexer
		p.Reset(b)
		l.Reset(b)
		var ps, pe int
		var pf float64
		var frac, neg, ok bool
		p.Run(func() { ps, pe, pf, frac, neg, ok = p.PlainNum() })
		var ls, le int
		var lneg bool
		numErr := l.Run(func() {
			if l.Peek() == Number {
				ls, le, _, lneg = l.Num()
			} else {
				le = -1
			}
		})
		if !ok {
			if p.Pos() != 0 {
				t.Fatalf("PlainNum(%q) refused but read to %d", s, p.Pos())
			}
			if numErr == nil && le > 0 {
				text := s[ls:le]
				digits := 0
				for _, c := range text {
					if c >= '0' && c <= '9' {
						digits++
					}
				}
				if digits <= 15 && !strings.ContainsAny(text, "eE") && (le == len(s) || s[le] != '.') {
					t.Fatalf("PlainNum(%q) refused the plain number %q", s, text)
				}
			}
			return
		}
		if numErr != nil || le < 0 || ps != ls || pe != le || p.Pos() != l.Pos() {
			t.Fatalf("PlainNum(%q) = %d..%d, Num %d..%d (%v)", s, ps, pe, ls, le, numErr)
		}
		if want := l.Float(ls, le); math.Float64bits(pf) != math.Float64bits(want) {
			t.Fatalf("PlainNum(%q) = %v, Float %v", s, pf, want)
		}
		if frac != strings.Contains(s[ps:pe], ".") || neg != lneg {
			t.Fatalf("PlainNum(%q): frac %v, neg %v", s, frac, neg)
		}
	})
}

// LoneSurrogate finds the first \u escape that is half a surrogate pair
// alone, wherever a string is read, and none in a pair; Reset and Rewind
// forget it.
func TestLoneSurrogate(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want int // the offset of the escape's backslash; -1 none
	}{
		{`"\ud800"`, 1},
		{`"ab\uDC00"`, 3},
		{`"\ud83d\ude00"`, -1},
		{`"\uD83D\uDE00 \ud83d"`, 14},
		{`"\\ud83d\ude00"`, 8},
		{`"\ud83d\\ude00"`, 1},
		{`"\ud83d\u0041"`, 1},
		{`"\ud83d\ud83d\ude00"`, 1},
		{`"\u0041\u00e9"`, -1},
		{`{"\udfff":1}`, 2},
		{`["ok", "\ud800", "\udc00"]`, 8},
	} {
		var l Lexer
		l.Reset([]byte(tc.doc))
		if err := l.Run(func() { l.Skip(l.Peek()); l.End() }); err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		off, ok := l.LoneSurrogate()
		if !ok {
			off = -1
		}
		if off != tc.want {
			t.Errorf("%s: lone surrogate at %d (%v), want %d", tc.doc, off, ok, tc.want)
		}
		l.Rewind()
		if _, ok := l.LoneSurrogate(); ok {
			t.Errorf("%s: Rewind kept the lone surrogate", tc.doc)
		}
	}
}

// FuzzLoneSurrogate holds LoneSurrogate, which looks back and forth from
// each surrogate escape, to a scan forward over the document's strings
// that pairs a high escape with the low one right after it.
func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"\ud800"`, `["\ud83d\ude00", "\\ud83d\ude00"]`, `{"\udc00\ud800":"\uD800\uDC00x"}`,
		`"\ud83d\ud83d\ude00\ude00"`, `"\\\ud800"`, `"\u0041"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if depth(b) >= MaxDepth {
			return
		}
		var l Lexer
		l.Reset(b)
		if err := l.Run(func() { l.Skip(l.Peek()); l.End() }); err != nil {
			return
		}
		got, ok := l.LoneSurrogate()
		if !ok {
			got = -1
		}
		if want := firstLoneSurrogate(b); got != want {
			t.Fatalf("%q: LoneSurrogate %d, the forward scan %d", b, got, want)
		}
	})
}

// firstLoneSurrogate is the offset of the first lone surrogate escape of a
// valid JSON document, -1 for none, found by a scan forward.
func firstLoneSurrogate(b []byte) int {
	first := -1
	lone := func(off int) {
		if first < 0 || off < first {
			first = off
		}
	}
	in, high := false, -1 // high: an unpaired high escape's offset
	for i := 0; i < len(b); {
		switch {
		case !in:
			in = b[i] == '"'
			i++
		case b[i] == '\\' && b[i+1] == 'u':
			r, _ := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
			switch {
			case r >= 0xDC00 && r <= 0xDFFF && high >= 0:
				high = -1 // the pair's second half
			case r >= 0xDC00 && r <= 0xDFFF:
				lone(i)
			default:
				if high >= 0 {
					lone(high)
					high = -1
				}
				if r >= 0xD800 && r < 0xDC00 {
					high = i
				}
			}
			i += 6
		default:
			if high >= 0 {
				lone(high)
				high = -1
			}
			if b[i] == '\\' {
				i += 2
			} else {
				in = b[i] != '"'
				i++
			}
		}
	}
	return first
}

// TestWhitespaceRuns: every run of JSON's four whitespace bytes is read
// whole wherever it stands (an indentation of any length after a newline,
// CRLF, tabs, shorter and longer than a word), and the bytes JSON does not
// count as whitespace (\v, \f, NBSP, NUL) are refused where one stands.
func TestWhitespaceRuns(t *testing.T) {
	t.Parallel()
	var runs []string
	for n := 0; n <= 19; n++ {
		sp := strings.Repeat(" ", n)
		runs = append(runs, sp, "\n"+sp, "\r\n"+sp, "\n"+sp+"\t", "\n"+sp+"\n"+sp, "\t"+sp+"\r")
	}
	for _, ws := range runs {
		doc := "{" + ws + `"a"` + ws + ":" + ws + "[" + ws + "12" + ws + "," + ws + `"x"` + ws + "]" + ws + "}" + ws
		var spans []string
		if err := Walk([]byte(doc), func(p []Seg, v Value) { spans = append(spans, doc[v.Start:v.End]) }); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if len(spans) != 4 || spans[0] != "12" || spans[1] != `"x"` || spans[3] != strings.TrimRight(doc, " \t\r\n") {
			t.Fatalf("%q: spans %q", doc, spans)
		}
		for _, bad := range []string{"\v", "\f", "\u00a0", "\x00"} {
			for _, at := range []int{0, len(ws) / 2, len(ws)} {
				doc := "[" + ws[:at] + bad + ws[at:] + "1]"
				if err := Walk([]byte(doc), func([]Seg, Value) {}); err == nil {
					t.Fatalf("%q: no error", doc)
				}
			}
		}
	}
}

// TestStrThreeByteSequences: a string is accepted exactly when its bytes
// are valid UTF-8, for every three-byte lead (E0-EF) with continuation
// bytes either side of their ranges' edges, the sequence anywhere in the
// string (first, between ASCII, last before the quote, at the input's end).
func TestStrThreeByteSequences(t *testing.T) {
	t.Parallel()
	edges := []byte{0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0}
	for lead := 0xe0; lead <= 0xef; lead++ {
		for _, c1 := range edges {
			for _, c2 := range edges {
				seq := string([]byte{byte(lead), c1, c2})
				for _, doc := range []string{`"` + seq + `"`, `"a` + seq + `b"`, `"` + seq + seq + `"`, `["` + seq + `"]`, `"` + seq} {
					err := Walk([]byte(doc), func([]Seg, Value) {})
					want := utf8.ValidString(seq) && strings.Count(doc, `"`) == 2
					if (err == nil) != want {
						t.Errorf("%q: error %v, want valid %v", doc, err, want)
					}
				}
			}
		}
	}
}

// TestPeekEveryByte: Peek names the kind each byte starts, and fails on
// every byte that starts no value.
func TestPeekEveryByte(t *testing.T) {
	t.Parallel()
	for c := 0; c < 256; c++ {
		want, starts := Kind(0), true
		switch {
		case c == '{':
			want = Object
		case c == '[':
			want = Array
		case c == '"':
			want = String
		case c == 't' || c == 'f':
			want = Bool
		case c == 'n':
			want = Null
		case c == '-' || c >= '0' && c <= '9':
			want = Number
		default:
			starts = false
		}
		var l Lexer
		l.Reset([]byte{byte(c), ' '})
		var got Kind
		err := l.Run(func() { got = l.Peek() })
		if starts && (err != nil || got != want) || !starts && err == nil {
			t.Errorf("Peek at %q = %v (%v), want %v (starts a value: %v)", byte(c), got, err, want, starts)
		}
	}
}
