package input

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// items reads a whole input and describes it: its kind, then each item as
// "<line>:<col>/<element> <body or flag>".
func items(t testing.TB, name, in string, opts Options) (Kind, []string, error) {
	t.Helper()
	opts.Name = name
	rd := NewReader(context.Background(), strings.NewReader(in), opts)
	kind, err := rd.Kind()
	if err != nil {
		return kind, nil, err
	}
	var out []string
	for {
		it, err := rd.Next()
		if err == io.EOF {
			return kind, out, nil
		}
		if err != nil {
			return kind, out, err
		}
		d := fmt.Sprintf("%d:%d/%d ", it.Line, it.Column, it.Element)
		switch {
		case it.Long:
			d += "LONG"
		case it.Problem != "":
			d += "PROBLEM " + it.Problem
		case it.Torn:
			d += "TORN"
		default:
			d += string(it.Body)
		}
		out = append(out, d)
	}
}

const rec = `{"capture":1,"method":"POST","query":"businessType=X","body":"{}"}`

// sorted is rec with its members sorted, as jq -S writes it.
const sorted = `{"body":"{}","capture":1,"method":"POST","query":"businessType=X"}`

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, in string
		kind           Kind
		want           []string
		err            string
		har            bool // Options.HAR
	}{
		{name: "empty", file: "a.json", in: "", kind: Empty},
		{name: "white space", file: "a.json", in: " \n\t\r\n", kind: Empty},
		{name: "empty ndjson", file: "a.ndjson", in: "\n\n", kind: Empty},
		{name: "document", file: "a.json", in: "{\n  \"a\": 1\n}\n", kind: Document, want: []string{"0:0/-1 {\n  \"a\": 1\n}\n"}},
		{name: "one-line document reads as NDJSON", file: "a.json", in: `{"a":1}`, kind: NDJSON, want: []string{`1:0/-1 {"a":1}`}},
		// A first line that starts no JSON value is no payload with a
		// defect: the input is not JSON, said once.
		{name: "not JSON", file: "a.txt", in: "hello world\n", err: `line 1, column 1: not JSON or NDJSON (the line begins "hello world", which starts no JSON value)`},
		{name: "YAML", file: "a.yaml", in: "---\nname: x\n", err: `line 1, column 1: not JSON or NDJSON (the line begins "---", which starts no JSON value)`},
		{name: "YAML list", file: "a.yaml", in: "- a\n", err: `line 1, column 1: not JSON or NDJSON (the line begins "- a", which starts no JSON value)`},
		{name: "indented word named ndjson", file: "a.ndjson", in: "\n\t word\n", err: `line 2, column 3: not JSON or NDJSON (the line begins "word", which starts no JSON value)`},
		{name: "HTML", file: "-", in: "<html><body>502 Bad Gateway … and a long page</body></html>", err: `line 1, column 1: not JSON or NDJSON (the line begins "<html><body>502 Bad Gate…", which starts no JSON value)`},
		// JSON with a defect at its start stays an item the syntax check
		// names the defect of.
		{name: "comment", file: "a.json", in: "// c\n", kind: NDJSON, want: []string{"1:0/-1 // c"}},
		{name: "byte-order mark", file: "a.json", in: "\ufeff{}\n", kind: NDJSON, want: []string{"1:0/-1 \ufeff{}"}},
		{name: "NaN", file: "a.json", in: "NaN\n", kind: NDJSON, want: []string{"1:0/-1 NaN"}},
		{name: "negative", file: "a.json", in: "-1x\n", kind: NDJSON, want: []string{"1:0/-1 -1x"}},
		{name: "single quotes", file: "a.json", in: "'a'\n", kind: NDJSON, want: []string{"1:0/-1 'a'"}},
		{name: "a literal cut short", file: "a.json", in: "tru\n", kind: NDJSON, want: []string{"1:0/-1 tru"}},
		{name: "a number cut short", file: "a.json", in: "-", kind: NDJSON, want: []string{"1:0/-1 -"}},
		{name: "a word that starts like a literal", file: "a.yaml", in: "nullable: true\n", err: `line 1, column 1: not JSON or NDJSON (the line begins "nullable: true", which starts no JSON value)`},
		{name: "scalar", file: "a.json", in: "42", kind: NDJSON, want: []string{"1:0/-1 42"}},
		{name: "array", file: "a.json", in: "  [ {\"a\":1} ,\n {\"b\":2}]\n", kind: Array,
			want: []string{`1:5/0 {"a":1}`, `2:2/1 {"b":2}`}},
		{name: "empty array", file: "a.json", in: "[ ]", kind: Array},
		// CR-only line ends (classic Mac OS) are line ends too: a
		// pretty-printed document saved so is one document, not one
		// NDJSON line, and array elements are placed on their lines.
		{name: "CR-only document", file: "a.json", in: "{\r  \"a\": 1\r}\r", kind: Document, want: []string{"0:0/-1 {\r  \"a\": 1\r}\r"}},
		{name: "CR-only array", file: "a.json", in: "[\r{},\r\r {}\r]\r", kind: Array, want: []string{"2:1/0 {}", "4:2/1 {}"}},
		{name: "CR-only lines before an array", file: "a.json", in: "\r\r  [{},\r{}]", kind: Array, want: []string{"3:4/0 {}", "4:1/1 {}"}},
		{name: "CRLF lines before an array", file: "a.json", in: "\r\n\r\n  [{},\r\n{}]", kind: Array, want: []string{"3:4/0 {}", "4:1/1 {}"}},
		{name: "CRLF array", file: "a.json", in: "[\r\n{},\r\n\r\n {}\r\n]\r\n", kind: Array, want: []string{"2:1/0 {}", "4:2/1 {}"}},
		{name: "CR-only values are no NDJSON", file: "a.json", in: "{}\r{}\r", kind: NDJSON, want: []string{"1:0/-1 {}\r{}"}},
		{name: "array not closed", file: "a.json", in: "[{}", kind: Array, want: []string{"1:2/0 {}", "1:4/-1 PROBLEM the array is not closed (a missing ])"}},
		{name: "array trailing comma", file: "a.json", in: "[{},]", kind: Array, want: []string{"1:2/0 {}", "1:5/1 PROBLEM an empty array element (a trailing comma?)"}},
		{name: "data after array", file: "a.json", in: "[{}] x", kind: Array, want: []string{"1:2/0 {}", "1:6/-1 PROBLEM data after the array's closing ]"}},
		{name: "array in an ndjson file is a line", file: "a.ndjson", in: "[1,2]\n[3]\n", kind: NDJSON, want: []string{"1:0/-1 [1,2]", "2:0/-1 [3]"}},
		{name: "ndjson with blank and CRLF lines", file: "-", in: "\n{\"a\":1}\r\n\n{\"b\":2}\n", kind: NDJSON,
			want: []string{`2:0/-1 {"a":1}`, `4:0/-1 {"b":2}`}},
		// A line is its bytes as they stand, the white space it starts
		// with too, the first line's as every other's: only the blank
		// lines before it are no line's (the first was sent without it).
		{name: "indented lines", file: "-", in: "\n \t{\"a\":1}\n  {\"b\":2} \n", kind: NDJSON,
			want: []string{"2:0/-1  \t{\"a\":1}", `3:0/-1   {"b":2} `}},
		{name: "indented lines named ndjson", file: "a.ndjson", in: "  {\"a\":1}\n  {\"b\":2}\n", kind: NDJSON,
			want: []string{`1:0/-1   {"a":1}`, `2:0/-1   {"b":2}`}},
		{name: "an indented broken first line, then payloads", file: "a.json", in: "\r\n  {bad\n {\"a\":1}\n", kind: NDJSON,
			want: []string{"2:0/-1   {bad", `3:0/-1  {"a":1}`}},
		{name: "an indented broken first line named ndjson", file: "a.ndjson", in: "  {\"a\":\n", kind: NDJSON, want: []string{`1:0/-1   {"a":`}},
		{name: "indented captures", file: "c.log", in: " " + rec + "\n " + rec + "\n", kind: Captures, want: []string{"1:0/-1  " + rec, "2:0/-1  " + rec}},
		{name: "captures", file: "c.log", in: rec + "\n" + rec + "\n", kind: Captures, want: []string{"1:0/-1 " + rec, "2:0/-1 " + rec}},
		{name: "torn capture", file: "c.log", in: rec + "\n" + rec[:20], kind: Captures, want: []string{"1:0/-1 " + rec, "2:0/-1 TORN"}},
		{name: "one torn record", file: "c.ndjson", in: rec[:20], kind: Captures, want: []string{"1:0/-1 TORN"}},
		{name: "a first record cut short, then records", file: "c.log", in: rec[:20] + "\n" + rec + "\n", kind: Captures,
			want: []string{"1:0/-1 " + rec[:20], "2:0/-1 " + rec}},
		// Named .ndjson, as listen names captures, the same: a first line
		// that leaves brackets open and a whole second line are NDJSON
		// with a broken first line, not pretty-printed JSON; so is one
		// line alone.
		{name: "a first record cut short, then records, named ndjson", file: "c.ndjson", in: rec[:20] + "\n" + rec + "\n", kind: Captures,
			want: []string{"1:0/-1 " + rec[:20], "2:0/-1 " + rec}},
		{name: "a broken first line, then payloads, named ndjson", file: "a.ndjson", in: "{bad\n{\"a\":1}\n", kind: NDJSON,
			want: []string{"1:0/-1 {bad", `2:0/-1 {"a":1}`}},
		{name: "one line cut short, named ndjson", file: "a.ndjson", in: "{\"a\":\n", kind: NDJSON, want: []string{`1:0/-1 {"a":`}},
		// jq -S, a Go map, sort_keys: "body" first and "capture" behind
		// it, a record all the same; a payload that holds a "capture"
		// deeper, one that is no number, or a "body" and no "capture",
		// stays a payload.
		{name: "captures with members re-sorted", file: "c.ndjson", in: sorted + "\n" + rec + "\n", kind: Captures, want: []string{"1:0/-1 " + sorted, "2:0/-1 " + rec}},
		{name: "a payload with a capture member deeper", file: "a.ndjson", in: `{"data":{"capture":1},"n":[{"capture":2}]}` + "\n", kind: NDJSON, want: []string{`1:0/-1 {"data":{"capture":1},"n":[{"capture":2}]}`}},
		{name: "a payload with a body and no capture", file: "a.ndjson", in: `{"body":{"capture":1},"x":[1,{"a":[]}]}` + "\n", kind: NDJSON, want: []string{`1:0/-1 {"body":{"capture":1},"x":[1,{"a":[]}]}`}},
		{name: "a payload whose body leads and capture is no number", file: "a.ndjson", in: `{"body":"","capture":"1"}` + "\n", kind: NDJSON, want: []string{`1:0/-1 {"body":"","capture":"1"}`}},
		{name: "a payload whose capture is no number", file: "a.ndjson", in: `{"a":1,"capture":"yes"}` + "\n", kind: NDJSON, want: []string{`1:0/-1 {"a":1,"capture":"yes"}`}},
		{name: "a re-sorted record torn after its capture", file: "c.log", in: rec + "\n" + `{"body":"{}","capture":1,"method":"PO`, kind: Captures, want: []string{"1:0/-1 " + rec, "2:0/-1 TORN"}},
		// A HAR file is JSON, but neither payloads nor capture records:
		// refused at once, pretty-printed (as browsers write it) or on
		// one line, whatever its name, unless the reader takes HAR
		// (anonymize). An object whose first member is another, or whose
		// "log" is no object, stays a payload.
		{name: "HAR", file: "a.har", in: "{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"entries\": []\n  }\n}\n", err: harError.Msg},
		{name: "HAR with CRLF", file: "a.har", in: "{\r\n\t\"log\" : {\r\n\t\t\"entries\": []}}\r\n", err: harError.Msg},
		{name: "HAR on one line", file: "a.json", in: `{"log":{"version":"1.2","entries":[]}}`, err: harError.Msg},
		{name: "HAR named ndjson", file: "a.ndjson", in: `{"log":{"entries":[]}}` + "\n", err: harError.Msg},
		{name: "HAR read as one", file: "a.har", har: true, in: "{\n  \"log\": {\n    \"entries\": []\n  }\n}\n", kind: Document, want: []string{"0:0/-1 {\n  \"log\": {\n    \"entries\": []\n  }\n}\n"}},
		{name: "HAR on one line read as one", file: "a.har", har: true, in: `{"log":{"entries":[]}}`, kind: NDJSON, want: []string{`1:0/-1 {"log":{"entries":[]}}`}},
		{name: "log not first", file: "a.json", in: `{"a":1,"log":{"entries":[]}}`, kind: NDJSON, want: []string{`1:0/-1 {"a":1,"log":{"entries":[]}}`}},
		{name: "log no object", file: "a.json", in: `{"log":"x"}`, kind: NDJSON, want: []string{`1:0/-1 {"log":"x"}`}},
		// A payload whose first member is a "log" object without entries
		// is no HAR, pretty-printed or not.
		{name: "a log of no entries", file: "a.json", in: "{\n  \"log\": {\n    \"level\": \"info\"\n  },\n  \"entries\": []\n}\n", kind: Document, want: []string{"0:0/-1 {\n  \"log\": {\n    \"level\": \"info\"\n  },\n  \"entries\": []\n}\n"}},
		{name: "entries no list", file: "a.json", in: `{"log":{"entries":{}}}`, kind: NDJSON, want: []string{`1:0/-1 {"log":{"entries":{}}}`}},
		{name: "pretty JSON named ndjson", file: "a.ndjson", in: "{\n \"a\": 1\n}\n", err: "line 1: not a whole JSON value: the file holds pretty-printed JSON, and NDJSON is one value per line (convert it with jq -c .)"},
		{name: "pretty array named jsonl", file: "a.jsonl", in: "[\n1]\n", err: "line 1: not a whole JSON value: the file holds pretty-printed JSON, and NDJSON is one value per line (convert it with jq -c '.[]')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, got, err := items(t, tt.file, tt.in, Options{HAR: tt.har})
			if tt.err != "" {
				var fe *FormatError
				if !errors.As(err, &fe) || err.Error() != tt.err {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kind != tt.kind || strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
				t.Errorf("%v %q\nwant %v %q", kind, got, tt.kind, tt.want)
			}
		})
	}
}

// A line, element or document over Max is returned as soon as it is known
// to be (Long, its bytes dropped); reading on skips its rest, at most
// skipMax times Max, and then gives up.
func TestLong(t *testing.T) {
	t.Parallel()
	x := strings.Repeat("x", 100)
	tests := []struct {
		name, file, in string
		want           []string
		err            string
	}{
		{name: "long line then more", file: "-", in: "1\n" + x + "\n2\n", want: []string{"1:0/-1 1", "2:0/-1 LONG", "3:0/-1 2"}},
		{name: "long first line", file: "-", in: x + "\n{}", want: []string{"1:0/-1 LONG", "2:0/-1 {}"}},
		{name: "long element", file: "-", in: `[1,"` + x + `",2]`, want: []string{"1:2/0 1", "1:4/1 LONG", "1:107/2 2"}},
		{name: "long document", file: "a.json", in: "{\n" + strings.Repeat("\"a\": 1,\n", 20) + "\"b\": 2}", want: []string{"0:0/-1 LONG"}},
		{name: "a long second line makes NDJSON", file: "a.json", in: "{\n" + x + "\n}", want: []string{"1:0/-1 {", "2:0/-1 LONG", "3:0/-1 }"}},
		{name: "a line with no end", file: "-", in: "1\n" + strings.Repeat("y", 400), want: []string{"1:0/-1 1", "2:0/-1 LONG"},
			err: "line 2: the line runs on past 0 MiB without a line break; the rest is not read"},
		{name: "an element with no end", file: "-", in: `["` + strings.Repeat("y", 400), want: nil,
			err: "element 0 runs on past 0 MiB; the rest is not read"},
		{name: "a document with no end", file: "a.json", in: "{\n\"a\": 1,\n" + strings.Repeat("y", 400), want: []string{"0:0/-1 LONG"},
			err: "the input is larger than 0 MiB; the rest is not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A small buffer, so that a long line is known before its end.
			_, got, err := items(t, tt.file, tt.in, Options{Max: 50, Buffer: 16})
			if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
			if strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
				t.Errorf("%q\nwant %q", got, tt.want)
			}
		})
	}
}

// A capture whose first record is larger than Max (listen took a body over
// 64 MiB under a larger --max-body) is still a capture: read as NDJSON,
// replay and inspect refused the whole file ("line 1 is larger than 64
// MiB") where a long record further on is skipped with a warning.
func TestLongFirstRecordIsACapture(t *testing.T) {
	t.Parallel()
	big := `{"capture":1,"body":"` + strings.Repeat("x", 100) + `"}`
	for _, tc := range []struct {
		name, in string
		kind     Kind
	}{
		{"a long record, then records", big + "\n" + rec + "\n", Captures},
		{"a long record alone", big + "\n", Captures},
		{"a long record, white space before it", " \n\t" + big + "\n" + rec + "\n", Captures},
		{"a long payload, then records", `{"requestId":"` + strings.Repeat("x", 100) + `"}` + "\n" + rec + "\n", NDJSON},
	} {
		kind, got, err := items(t, "c.log", tc.in, Options{Max: 80, Buffer: 16})
		if err != nil || kind != tc.kind || len(got) == 0 || !strings.HasSuffix(got[0], " LONG") {
			t.Errorf("%s: %v, %q, %v; want %v, the long line first", tc.name, kind, got, err, tc.kind)
		}
	}
}

// A reader that stops at a long line reads no further than the limit:
// an endless input is never read to its end.
func TestLongStopsReading(t *testing.T) {
	t.Parallel()
	zero := &counter{}
	rd := NewReader(context.Background(), zero, Options{Max: 1 << 10, Buffer: 64})
	it, err := rd.Next()
	if err != nil || !it.Long || it.Line != 1 {
		t.Fatalf("Next = %+v, %v", it, err)
	}
	if zero.n > 2<<10 {
		t.Errorf("read %d bytes for a limit of 1 KiB", zero.n)
	}
	var tl *TooLargeError
	if err := rd.Check(it); !errors.As(err, &tl) || err.Error() != "line 1 is larger than 0 MiB" {
		t.Errorf("Check = %v", err)
	}
}

// counter is /dev/zero, counting what was read.
type counter struct{ n int }

func (c *counter) Read(p []byte) (int, error) {
	clear(p)
	c.n += len(p)
	return len(p), nil
}

// Check places what is not JSON in the whole input.
func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, in, want string }{
		{"document", "a.json", "{\n  \"a\": ,\n}", "a.json:2:8: not JSON (invalid character ',' looking for beginning of value)"},
		{"line", "-", "{}\n{x}\n", "-:2:2: not JSON (invalid character 'x' looking for beginning of object key string)"},
		{"element", "a.json", "[{},\n  {\"a\":}]", "a.json:2:8: not JSON (invalid character '}' looking for beginning of value)"},
		{"element on the first line", "a.json", "[{}, nope]", "a.json:1:7: not JSON (invalid character 'o' in literal null (expecting 'u'))"},
		{"cut short", "a.json", "{\n\"a\":", "a.json:2:4: not JSON (unexpected end of JSON input)"},
		{"problem", "a.json", "[{},]", "a.json:1:5: an empty array element (a trailing comma?)"},
		// encoding/json names the byte it stopped at as if it were a
		// Latin-1 character ('ï' for a byte-order mark, 'â' for a curly
		// quote): the message names what the file holds instead.
		{"byte-order mark", "a.json", "\ufeff{}", "a.json:1:1: not JSON (a byte-order mark (U+FEFF) before the value: save the file as UTF-8 without BOM)"},
		{"byte-order mark on a later line", "-", "{}\n\ufeff{}\n", "-:2:1: not JSON (a byte-order mark (U+FEFF) before the value: save the file as UTF-8 without BOM)"},
		{"curly quotes", "a.json", "{\u201ca\u201d:1}", "a.json:1:2: not JSON (invalid character '\u201c' looking for beginning of object key string)"},
		{"full-width comma after the value", "a.json", "{}\uff0c", "a.json:1:3: not JSON (invalid character '\uff0c' after top-level value)"},
		{"bad UTF-8", "a.json", "{\"a\":\xff}", "a.json:1:6: not JSON (invalid UTF-8 byte 0xff looking for beginning of value)"},
		{"a control character", "a.json", "{\"a\":\u0085}", "a.json:1:6: not JSON (invalid character '\\u0085' looking for beginning of value)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rd := NewReader(context.Background(), strings.NewReader(tt.in), Options{Name: tt.file})
			var first error
			for first == nil {
				it, err := rd.Next()
				if err != nil {
					t.Fatalf("no fault found: %v", err)
				}
				first = rd.Check(it)
			}
			if got := Named(tt.file, first).Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// A large item is checked on a goroutine of its own, with the same
// findings, and not at all once the reader's context is done.
func TestCheckLargeItem(t *testing.T) {
	t.Parallel()
	big := `{"a":"` + strings.Repeat("x", syntaxInBackground) + `"}`
	for _, tt := range []struct{ name, in, want string }{
		{"valid", big, ""},
		{"fault at its end", big[:len(big)-1] + ",\n}", "a.json:2:1: not JSON (invalid character '}' looking for beginning of object key string)"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rd := NewReader(ctx, strings.NewReader(tt.in), Options{Name: "a.json", Whole: true})
		it, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := rd.Check(it); err != nil {
			got = Named("a.json", err).Error()
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		cancel()
		if err := rd.Check(it); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Check after cancel = %v, want context.Canceled", tt.name, err)
		}
	}
}

// cancelAfter is a reader of first, then x without end, that cancels its
// context once it has been read n times.
type cancelAfter struct {
	first  string
	n      int
	cancel context.CancelFunc
	reads  int
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	c.reads++
	if c.reads == c.n {
		c.cancel()
	}
	if c.reads == 1 {
		return copy(p, c.first), nil
	}
	return copy(p, bytes.Repeat([]byte("x"), min(len(p), 4096))), nil
}

// A whole document, and a long line, are read giving way to ctx between
// reads: a regular file's reads never block, but a large one takes a while.
func TestReadsGiveWay(t *testing.T) {
	t.Parallel()
	for _, first := range []string{
		"{\"a\":\n\"", // a document: its first line is no value
		"\"",          // one line without end
	} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		src := &cancelAfter{first: first, n: 50, cancel: cancel}
		rd := NewReader(ctx, src, Options{Whole: true, Buffer: 4096})
		_, err := rd.Kind()
		if err == nil {
			_, err = rd.Next()
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%q: got %v, want context.Canceled", first, err)
		}
		if src.reads > src.n {
			t.Errorf("%q: read %d times, %d after the cancel", first, src.reads, src.reads-src.n)
		}
	}
}

// Reading a pipe that never ends gives way once ctx is done, between items.
func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	rd := NewReader(ctx, strings.NewReader("1\n2\n3\n"), Options{})
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := rd.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel = %v", err)
	}
}

// Offsets are where each line starts, for a reader that seeks back to it.
func TestOffsets(t *testing.T) {
	t.Parallel()
	in := "\n  " + rec + "\n\n" + rec + "\r\n" + rec
	rd := NewReader(context.Background(), strings.NewReader(in), Options{Lines: true})
	for {
		it, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(in[it.Offset:], string(it.Body)) {
			t.Errorf("line %d at %d: %q", it.Line, it.Offset, in[it.Offset:])
		}
	}
}

// FuzzDetect: any input reads to its end (or a FormatError) without a
// panic; items are never larger than Max; and a valid JSON document or
// array is read whole, as what json.Valid says it is.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"", " ", "{}", "{\n}", "[1,2]", "[", "[{},]", "1\n2", rec, rec[:20], rec + "\n" + rec[:9],
		"{\n\"a\":[\n1]}", "[\"]\"]", "\"\\\"[\"", "{\"a\":\n1}\n{}\n", "\xff\xfe", "[]]",
		"{\"log\":{\"entries\":[]}}", "{\n \"log\" : {\n\"entries\":[\n", "\n  {}\n {}", " \t{\"a\":\n{}\n"} {
		f.Add([]byte(s), false, uint16(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, ndjson bool, max uint16) {
		name := "in.json"
		if ndjson {
			name = "in.ndjson"
		}
		limit := int(max%512) + 1
		rd := NewReader(context.Background(), bytes.NewReader(in), Options{Name: name, Max: limit, Buffer: 16})
		kind, err := rd.Kind()
		if err != nil {
			if _, ok := errors.AsType[*FormatError](err); !ok {
				t.Fatalf("Kind: %v", err)
			}
			return
		}
		n := 0
		for {
			it, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, ok := errors.AsType[*FormatError](err); !ok {
					t.Fatalf("Next: %v", err)
				}
				return
			}
			n++
			if len(it.Body) > limit+1 {
				t.Fatalf("item of %d bytes over a limit of %d", len(it.Body), limit)
			}
			if it.Long && it.Body != nil {
				t.Fatal("a long item with bytes")
			}
			if it.Element < 0 && it.Line > 0 && it.Body != nil && !bytes.HasPrefix(in[it.Offset:], it.Body) {
				// A line is its bytes as they stand, where it starts.
				t.Fatalf("line %d at %d is %q, the input there %q", it.Line, it.Offset, it.Body, in[it.Offset:])
			}
			_ = rd.Check(it)
		}
		trimmed := bytes.Trim(in, jsonSpace)
		switch {
		case len(trimmed) == 0 && kind != Empty:
			t.Fatalf("blank input read as %v", kind)
		case kind == Empty && len(trimmed) > 0:
			t.Fatalf("%q read as empty", in)
		case !ndjson && len(in) <= limit && len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(in) && kind != Array:
			t.Fatalf("an array read as %v", kind)
		}
	})
}

// TestLongLinesAreNDJSON: lines longer than the read buffer (as the 64 KiB
// buffers of anonymize, inspect and capture) are still NDJSON, one item a
// line, never one document.
func TestLongLinesAreNDJSON(t *testing.T) {
	t.Parallel()
	line := `{"pad":"` + strings.Repeat("a", 100<<10) + `"}`
	for _, tt := range []struct {
		name, file, in string
		kind           Kind
	}{
		{"payloads", "a.json", line + "\n" + line + "\n", NDJSON},
		{"no final line break", "-", line + "\n" + line, NDJSON},
		{"CRLF", "a.ndjson", line + "\r\n" + line + "\r\n", NDJSON},
		{"records", "c.log", `{"capture":1,` + line[1:] + "\n" + `{"capture":1,` + line[1:] + "\n", Captures},
	} {
		for _, buf := range []int{64 << 10, 1 << 20} {
			kind, got, err := items(t, tt.file, tt.in, Options{Buffer: buf})
			if err != nil || kind != tt.kind || len(got) != 2 {
				t.Errorf("%s, buffer %d: kind %v, %d items, err %v", tt.name, buf, kind, len(got), err)
			}
		}
	}
}

// A record cut at any byte after its start is cut short, wherever the cut
// falls: in a string, right after an escape's backslash, inside a \u
// escape, a number or a literal (a crash picks no place).
func TestCutShortAtEveryByte(t *testing.T) {
	whole := `{"capture":1,"time":"2026-11-22T04:24:23Z","latencyMs":-1.5e3,"fault":null,"ok":true,"headers":{"A":["b"]},"body":"{\"x\":\"\u6536 \\ y\"}"}`
	start := len(`{"capture":`)
	for n := start; n < len(whole); n++ {
		if !CutShort([]byte(whole[:n])) {
			t.Errorf("CutShort(%q) = false, want true: cut at byte %d", whole[:n], n)
		}
	}
	if CutShort([]byte(whole)) {
		t.Errorf("CutShort of the whole record = true")
	}
}

// A capture record cut short is told from a line broken otherwise: only a
// record's start that is valid JSON as far as it goes is torn.
func TestCutShort(t *testing.T) {
	whole := `{"capture":1,"time":"2026-11-22T04:24:23Z","headers":{"A":["b"]},"body":"{\"x\":1}"}`
	for _, tt := range []struct {
		line string
		want bool
	}{
		{whole[:20], true},
		{whole[:len(whole)-1], true},
		{whole[:strings.Index(whole, `]}`)+2], true},  // cut right after an inner }
		{whole[:strings.Index(whole, `\"x`)+2], true}, // cut inside an escape in a string
		{`{"capture":`, true},
		{whole, false},                                 // whole: not torn
		{`{"capture":1,"time":x}`, false},              // broken, not cut short
		{`{"capture":1,"time":"a"}}`, false},           // one } too many
		{`{"requestId":"r1","businessType":5`, false},  // a payload cut short is no capture record
		{`{"capture":1,"time":"a",` + "\x00", false},   // a control byte: broken
		{`{"capture":1,"time":"2026-11-22T04:2`, true}, // mid-string
		// Cut where encoding/json, reading one space past the end, names
		// that space: still a text valid as far as it goes.
		{whole[:strings.Index(whole, `\"x`)+1], true}, // right after an escape's backslash
		{`{"capture":1,"body":"\u00`, true},           // inside a \u escape
		{`{"capture":1,"latencyMs":1.`, true},         // after a decimal point
		{`{"capture":1,"latencyMs":-`, true},          // after a minus sign
		{`{"capture":1,"latencyMs":1e`, true},         // after an exponent's e
		{`{"capture":1,"fault":nu`, true},             // inside a literal
		{`{"capture":1,"body":"\q`, false},            // a bad escape: broken
		{`{"capture":1,"latencyMs":1.x`, false},       // a bad number: broken
	} {
		if got := CutShort([]byte(tt.line)); got != tt.want {
			t.Errorf("CutShort(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestNamedPlacesEveryFault: an input's fault is said at its place as
// compilers and go vet say it, name:line:column: or name:line:, whatever
// kind it is. Found by ls45: "notjson.txt: line 1, column 1:",
// "pretty.ndjson: line 1 is not a whole JSON value" and "x.ndjson: line 2
// is larger than 64 MiB" beside "a.json:2:8:".
func TestNamedPlacesEveryFault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"not JSON at all", &FormatError{Line: 1, Column: 1, Msg: "not JSON or NDJSON"}, "x.txt:1:1: not JSON or NDJSON"},
		{"a line", &FormatError{Line: 3, Msg: "not a whole JSON value"}, "x.txt:3: not a whole JSON value"},
		{"no place", &FormatError{Msg: "the input is larger than 320 MiB"}, "x.txt: the input is larger than 320 MiB"},
		{"a line too large", &TooLargeError{What: "line 2", Line: 2, Max: 64 << 20}, "x.txt:2: the line is larger than 64 MiB"},
		{"an element too large", &TooLargeError{What: "element 2", Max: 64 << 20}, "x.txt: element 2 is larger than 64 MiB"},
		{"a syntax error", &SyntaxError{Line: 2, Column: 7, Msg: "not JSON (x)"}, "x.txt:2:7: not JSON (x)"},
	}
	for _, tt := range tests {
		if got := Named("x.txt", tt.err).Error(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	rd := NewReader(context.Background(), strings.NewReader("{\n \"a\": 1\n}\n"), Options{Name: "p.ndjson"})
	if _, err := rd.Kind(); err == nil || Named("p.ndjson", err).Error() != "p.ndjson:1: not a whole JSON value: the file holds pretty-printed JSON, and NDJSON is one value per line (convert it with jq -c .)" {
		t.Errorf("pretty-printed NDJSON: %v", Named("p.ndjson", err))
	}
}
