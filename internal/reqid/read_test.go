package reqid

import (
	"os"
	"testing"
)

// BenchmarkRead: listen reads the requestId of every call it prints.
func BenchmarkRead(b *testing.B) {
	rec, err := os.ReadFile("../../fixtures/CREATE_RECEIVABLE_DOC.sample.json")
	if err != nil {
		b.Fatal(err)
	}
	later := append([]byte(`{"businessType":5007,"data":{"收款单":{"编号":"1","客户名称":{"name":"温州锦程"}}},`), rec[1:]...)
	for _, c := range []struct {
		name string
		body []byte
	}{{"first", rec}, {"after-data", later}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Read(c.body) == "" {
					b.Fatal("no requestId")
				}
			}
		})
	}
}

// requestID reads the requestId's value wherever it is among the
// top-level members, and nothing for what is not JSON up to it.
func TestRead(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"requestId":"f87bc202-fd3b-4820-b674-098c23326449","businessType":5007}`: "f87bc202-fd3b-4820-b674-098c23326449",
		" \n{ \"requestId\" :\t\"abc\" } trailing":                                 "abc",
		`{"requestId":"收款单"}`:                                                      "收款单", `{"requestId":"a\u00e9"}`: "aé", `{"requestId":"a\"b"}`: `a"b`,
		`{"request\u0049d":"escaped key"}`: "escaped key", `{"x":{"requestId":"inner"},"requestId":"b"}`: "b",
		`{"requestId":12}`: "12", `{"requestId":{"a":[1]}}`: `{"a":[1]}`, `{"requestId":null}`: "",
		"{\"requestId\":\"\x1b[2J\"}": "", `{"requestId":"unterminated`: "",
		// A byte that is not UTF-8 is read as it is (receivers read U+FFFD
		// for it), in the requestId or in a string before it.
		"{\"requestId\":\"\xff\"}": "\xff", "{\"requestId\":\"ab\xffcd\"}": "ab\xffcd",
		"{\"x\":\"caf\xe9\",\"requestId\":\"b\"}": "b", "{\"requestId\":\"\xe9\\u00e9\"}": "\xe9é",
		"{\xff\"requestId\":\"a\"}": "",
		`{"requestIdx":"a"}`:        "", `["requestId"]`: "", ``: "", `{`: "", `{"requestId"`: "", `{"requestId":`: "",
		`{"x":1,,"requestId":"b"}`: "",
	} {
		if got := Read([]byte(body)); got != want {
			t.Errorf("Read(%q) = %q, want %q", body, got, want)
		}
	}
}

// Value reads the escapes of a requestId kept as it stands in the body,
// as Read reads the body; what is no string's inside is said as it is,
// never a panic on an escape cut short.
func TestValue(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{"2e4f38cc-6c67-4f22-9a09-e63767f64185", "2e4f38cc-6c67-4f22-9a09-e63767f64185"},
		{`caf\u00e9-1`, "café-1"},
		{`tab\tid`, "tab\tid"},
		{`a\"b\\c\/d`, `a"b\c/d`},
		{`\ud83d\ude00`, "😀"},
		{`cut\`, `cut\`},
		{`cut\u00`, `cut\u00`},
		{`a"b`, `a"b`},
		{`bad\x`, `bad\x`},
		{"caf\xe9\\u00e9", "caf\xe9é"},
		{"", ""},
	} {
		if got := Value(tt.raw); got != tt.want {
			t.Errorf("Value(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		// The raw of a body's requestId reads as Read reads the body.
		if body := []byte(`{"requestId":"` + tt.raw + `"}`); foundWhole(body) {
			if got, want := Value(tt.raw), Read(body); got != want {
				t.Errorf("Value(%q) = %q, Read of its body %q", tt.raw, got, want)
			}
		}
	}
}

// foundWhole says whether Find finds body's requestId whole.
func foundWhole(body []byte) bool {
	s, e := Find(body)
	return s >= 0 && e == len(body)-2
}

// A body that names no requestId (none, null, or none that reads) is not
// one that names an empty one: Lookup and Named tell them apart, and
// Shown says them apart ("-" and "" in quotes), as every command's text
// does.
func TestLookupTellsAbsentFromEmpty(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body, id string
		named    bool
		shown    string
	}{
		{`{"businessType":5007}`, "", false, "-"},
		{`{"requestId":null,"businessType":5007}`, "", false, "-"},
		{`{"requestId":"unterminated`, "", false, "-"},
		{``, "", false, "-"},
		{`{"requestId":"","businessType":5007}`, "", true, `""`},
		{` {"businessType":5007, "requestId" : ""}`, "", true, `""`},
		{`{"requestId":"r-1"}`, "r-1", true, "r-1"},
		{`{"requestId":12}`, "12", true, "12"},
	} {
		id, named := Lookup([]byte(c.body))
		if id != c.id || named != c.named || Named([]byte(c.body)) != c.named || Read([]byte(c.body)) != c.id {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.body, id, named, c.id, c.named)
		}
		if got := Shown(id, named); got != c.shown {
			t.Errorf("Shown of %q = %q, want %q", c.body, got, c.shown)
		}
	}
}
