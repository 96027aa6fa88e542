package anonymize

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// A path the sender escaped otherwise than Go does is recorded twice,
// decoded (path) and as sent (rawPath): anonymize replaces what names
// somebody in both, keeps the sender's escapes (a %2F stays inside its
// segment), and writes a record whose two paths still name one path. Had
// it replaced path alone, rawPath kept the phone number in the clear, and
// the record, naming two paths, was refused by every reader.
func TestRawPathIsAnonymizedWithThePath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ path, raw, gone string }{
		{"/hooks/13812345678/a", "/hooks/13812345678%2Fa", "13812345678"},
		{"/hooks/13812345678/A", "/hooks/%31%33%38%31%32%33%34%35%36%37%38/%41", "12345678"},
		{"/hooks/13812345678", "/hooks/13812345678", ""}, // no rawPath needed
	} {
		rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
			Path: tt.path, RawPath: tt.raw, Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE",
			Headers: http.Header{"Content-Type": {"application/json"}}}
		if tt.gone == "" {
			rec.RawPath, tt.gone = "", "13812345678"
		}
		rec.SetBody([]byte(`{"businessType":4010,"data":{"code":"CGFP202611010001","phone":"13812345678"}}`))
		in, err := capture.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		out, st := stream(t, newTestAnonymizer(t, testKey), in, Options{Check: true})
		if len(st.Leaks) != 0 {
			t.Errorf("%s: --check finds %+v in the output", tt.raw, st.Leaks)
		}
		got, err := capture.Decode(bytes.TrimSpace(out))
		if err != nil {
			t.Fatalf("%s: the output is no record: %v\n%s", tt.raw, err, out)
		}
		if strings.Contains(got.Path, tt.gone) || strings.Contains(got.RawPath, tt.gone) {
			t.Errorf("%s: anonymized to path %q, rawPath %q: still holds %q", tt.raw, got.Path, got.RawPath, tt.gone)
		}
		if strings.Contains(tt.raw, "%2F") && !strings.Contains(got.RawPath, "%2F") {
			t.Errorf("%s: anonymized to rawPath %q: the escaped slash is gone, another path", tt.raw, got.RawPath)
		}
		if strings.Count(got.TargetPath(), "/") != strings.Count(rec.TargetPath(), "/") {
			t.Errorf("%s: anonymized to %q: another number of segments", tt.raw, got.TargetPath())
		}
	}
}
