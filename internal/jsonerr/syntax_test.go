package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FirstSyntaxError says what Go 1.26's encoding/json says, in its words
// and at its offset, on any toolchain: these are fixed.
func TestFirstSyntaxError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in     string
		msg    string
		offset int64
	}{
		{``, "unexpected end of JSON input", 0},
		{`   `, "unexpected end of JSON input", 3},
		{`{"a":}`, "invalid character '}' looking for beginning of value", 6},
		{"\ufeff{}", "invalid character 'ï' looking for beginning of value", 1},
		{"{\u201ca\u201d:1}", "invalid character 'â' looking for beginning of object key string", 2},
		{"{\"a\":1}\xa0", "invalid character '\\u00a0' after top-level value", 8},
		{"\xff", "invalid character 'ÿ' looking for beginning of value", 1},
		{"1\uff0c", "invalid character 'ï' after top-level value", 2},
		{`{"a" 1}`, "invalid character '1' after object key", 6},
		{`{"a":1 2}`, "invalid character '2' after object key:value pair", 8},
		{`{"a":1x}`, "invalid character 'x' after object key:value pair", 7},
		{`[1 2]`, "invalid character '2' after array element", 4},
		{`[1,]`, "invalid character ']' looking for beginning of value", 4},
		{`{,}`, "invalid character ',' looking for beginning of object key string", 2},
		{`{"a":1,}`, "invalid character '}' looking for beginning of object key string", 8},
		{`01`, "invalid character '1' after top-level value", 2},
		{`[01]`, "invalid character '1' after array element", 3},
		{`-`, "invalid character ' ' in numeric literal", 1},
		{`-a`, "invalid character 'a' in numeric literal", 2},
		{`1.`, "invalid character ' ' after decimal point in numeric literal", 2},
		{`1.e`, "invalid character 'e' after decimal point in numeric literal", 3},
		{`1e`, "invalid character ' ' in exponent of numeric literal", 2},
		{`1e+`, "invalid character ' ' in exponent of numeric literal", 3},
		{`1E-x`, "invalid character 'x' in exponent of numeric literal", 4},
		{`tru`, "invalid character ' ' in literal true (expecting 'e')", 3},
		{`trUe`, "invalid character 'U' in literal true (expecting 'u')", 3},
		{`fals`, "invalid character ' ' in literal false (expecting 'e')", 4},
		{`nul `, "invalid character ' ' in literal null (expecting 'l')", 4},
		{`"abc`, "unexpected end of JSON input", 4},
		{"\"a\x01\"", "invalid character '\\x01' in string literal", 3},
		{`"\`, "invalid character ' ' in string escape code", 2},
		{`"\x"`, "invalid character 'x' in string escape code", 3},
		{`"\u12`, "invalid character ' ' in \\u hexadecimal character escape", 5},
		{`"\u12g4"`, "invalid character 'g' in \\u hexadecimal character escape", 6},
		{`{"a":1`, "unexpected end of JSON input", 6},
		{`{"a"`, "unexpected end of JSON input", 4},
		{`[`, "unexpected end of JSON input", 1},
		{`{"a":1,`, "unexpected end of JSON input", 7},
		{`'a'`, `invalid character '\'' looking for beginning of value`, 1},
		{`["a"""]`, `invalid character '"' after array element`, 5},
		{strings.Repeat("[", 10001), "invalid character '[' exceeded max depth", 10001},
		{strings.Repeat("[", 10000) + "x", "invalid character 'x' looking for beginning of value", 10001},
	} {
		got := FirstSyntaxError([]byte(tt.in))
		if got == nil || got.Msg != tt.msg || got.Offset != tt.offset {
			t.Errorf("FirstSyntaxError(%.40q) = %+v, want %q at %d", tt.in, got, tt.msg, tt.offset)
		}
		if got != nil {
			if err := partsSayMsg(got, []byte(tt.in)); err != nil {
				t.Errorf("FirstSyntaxError(%.40q): %v", tt.in, err)
			}
		}
	}
	for _, ok := range []string{`{}`, ` [ ] `, "\"\\u00e9\\ud800 \xff\"", `-0.5e+10`, `[true,false,null,{"a":[1]}]`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000)} {
		if got := FirstSyntaxError([]byte(ok)); got != nil {
			t.Errorf("FirstSyntaxError(%.40q) = %+v, want none", ok, got)
		}
	}
}

// partsSayMsg checks se's parts against its message, which callers that
// name the byte better compose again from them: the byte it stopped at
// (b's, when AtByte) quoted, then the context; or the text's end.
func partsSayMsg(se *SyntaxError, b []byte) error {
	var want string
	switch {
	case se.AtByte:
		if i := se.Offset - 1; i < 0 || i >= int64(len(b)) || b[i] != se.Byte {
			return fmt.Errorf("Byte %#x is not the text's at Offset-1 (%d)", se.Byte, se.Offset)
		}
		want = "invalid character " + quoteChar(se.Byte) + " " + se.Context
	case se.Offset != int64(len(b)):
		return fmt.Errorf("ended at %d, not at the text's end (%d)", se.Offset, len(b))
	case se.Context == "":
		want = "unexpected end of JSON input"
	default:
		want = "invalid character ' ' " + se.Context
	}
	if se.Msg != want {
		return fmt.Errorf("Msg %q, its parts say %q", se.Msg, want)
	}
	return nil
}

// encodingJSONv1 says this toolchain's encoding/json is Go 1.26's own
// (not json/v2 inside, as from Go 1.27): only then are its words the
// reference.
func encodingJSONv1() bool {
	var v any
	err := json.Unmarshal([]byte("\xff"), &v)
	return err != nil && err.Error() == "invalid character 'ÿ' looking for beginning of value"
}

// FuzzFirstSyntaxError holds FirstSyntaxError to encoding/json: what is
// JSON to one is to the other, and, where encoding/json is Go 1.26's own,
// the words and offset are its.
func FuzzFirstSyntaxError(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"x\u00e9"]}`, `{"a":}`, "\ufeff{}", `[1 2]`, `tru`, `"\u12`, `-`, "{\"a\":1}\xa0", `{"a"`} {
		f.Add([]byte(s))
	}
	v1 := encodingJSONv1()
	f.Fuzz(func(t *testing.T, b []byte) {
		got := FirstSyntaxError(b)
		if (got == nil) != json.Valid(b) {
			t.Fatalf("FirstSyntaxError(%q) = %v, json.Valid %v", b, got, json.Valid(b))
		}
		if got == nil {
			return
		}
		if err := partsSayMsg(got, b); err != nil {
			t.Fatalf("FirstSyntaxError(%q): %v", b, err)
		}
		if !v1 {
			return
		}
		var raw json.RawMessage
		se, ok := errors.AsType[*json.SyntaxError](json.Unmarshal(b, &raw))
		if !ok || se.Error() != got.Msg || se.Offset != got.Offset {
			t.Fatalf("FirstSyntaxError(%q) = %q at %d, encoding/json %v", b, got.Msg, got.Offset, se)
		}
	})
}
