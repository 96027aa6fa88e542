package listenout

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/whsim/whsim/internal/term"
)

// The summary line names the capture file a job reads next: a name that
// is not UTF-8 was written with U+FFFD, which names no file; it is given
// as its bytes in base64 with "captureEncoding", as validate --output json
// gives such a file name ("fileEncoding").
func TestSummaryJSONCaptureName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"calls.ndjson", "c\xff.ndjson", "收款.ndjson", ""} {
		p := NewCallPrinter(&bytes.Buffer{}, true, term.Style{})
		var js bytes.Buffer
		if err := p.SummaryJSON(&js, name); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Summary struct {
				Capture         *string `json:"capture"`
				CaptureEncoding string  `json:"captureEncoding"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		s := got.Summary
		switch {
		case name == "":
			if s.Capture != nil || s.CaptureEncoding != "" {
				t.Errorf("no capture: %s", js.Bytes())
			}
		case s.Capture == nil:
			t.Errorf("%q: no capture in %s", name, js.Bytes())
		case s.CaptureEncoding == "base64":
			if b, err := base64.StdEncoding.DecodeString(*s.Capture); err != nil || string(b) != name {
				t.Errorf("%q: capture %q decodes to %q (%v)", name, *s.Capture, b, err)
			}
		case s.CaptureEncoding != "" || *s.Capture != name:
			t.Errorf("%q: capture %q, encoding %q: want the name as it is", name, *s.Capture, s.CaptureEncoding)
		}
	}
}
