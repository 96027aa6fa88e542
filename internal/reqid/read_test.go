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
		"{\"requestId\":\"\x1b[2J\"}": "", "{\"requestId\":\"\xff\"}": "", `{"requestId":"unterminated`: "",
		`{"requestIdx":"a"}`: "", `["requestId"]`: "", ``: "", `{`: "", `{"requestId"`: "", `{"requestId":`: "",
		`{"x":1,,"requestId":"b"}`: "",
	} {
		if got := Read([]byte(body)); got != want {
			t.Errorf("Read(%q) = %q, want %q", body, got, want)
		}
	}
}
