package validate

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"net/http"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// A captured call whose body was sent compressed is checked as the
// document it decodes to; one that does not decode gets a
// content-encoding finding, not json-syntax, and with that rule ignored
// is still not checked: the bytes as they came are not the document.
func TestCaptureCompressedBody(t *testing.T) {
	t.Parallel()
	doc := []byte(load(t, "receipt.json"))
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(doc)
	w.Close()
	v := mustNew(t, Options{})
	vIgnoring := mustNew(t, Options{Ignore: []string{RuleContentEncoding}})
	for _, tc := range []struct {
		name, encoding string
		body           []byte
		want           []string // rules found
		wantIgnoring   []string // rules found with content-encoding ignored
		notChecked     bool     // no rule could look at the body, ignored or not
		header         string   // the header's name as the record gives it; "" is Content-Encoding
	}{
		{"plain", "", doc, nil, nil, false, ""},
		{"gzip", "gzip", gz.Bytes(), nil, nil, false, ""},
		// A hand-made record's header in another case is the same header
		// (replay sends it as Content-Encoding): the gzip bytes were
		// checked as the document, json-syntax.
		{"gzip, header in lower case", "gzip", gz.Bytes(), nil, nil, false, "content-encoding"},
		{"gzip, cut short", "gzip", gz.Bytes()[:gz.Len()/2], []string{RuleContentEncoding}, nil, true, ""},
		{"unknown encoding", "zstd", gz.Bytes(), []string{RuleContentEncoding}, nil, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}}}
			if tc.encoding != "" {
				rec.Headers[cmp.Or(tc.header, "Content-Encoding")] = []string{tc.encoding}
			}
			rec.SetBody(tc.body)
			line, err := capture.Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				v    *Validator
				want []string
			}{{v, tc.want}, {vIgnoring, tc.wantIgnoring}} {
				fs, notChecked, _ := c.v.checkCapture(line)
				if (notChecked != "") != tc.notChecked {
					t.Errorf("not checked %q, want it said: %v", notChecked, tc.notChecked)
				}
				var got []string
				for _, f := range fs {
					if f.Severity == Error {
						got = append(got, f.Rule)
					}
				}
				if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
					t.Errorf("errors %q (findings %+v), want %q", got, fs, c.want)
				}
			}
		})
	}
}
