package anonymize

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// The head of a request the HTTP server refused is raw bytes that did not
// read as HTTP: its credentials cannot be told from the rest, so none of
// it survives anonymize; the record stays one (format 2) with its size.
func TestRejectedHeadIsDropped(t *testing.T) {
	t.Parallel()
	const secret = "Bearer s3cr3t-token"
	rec := &capture.Record{Time: time.Unix(1, 0).UTC(), Remote: "10.1.2.3:5", Method: "POST", Path: "/hook", Headers: http.Header{},
		Rejected: &capture.Rejected{Reason: "Bad Request: invalid header name", HeadBytes: 80}}
	rec.Rejected.Head, rec.Rejected.HeadEncoding = capture.EncodeBody([]byte("POST /hook HTTP/1.1\r\nAuthorization: " + secret + "\r\nBad Name: v\r\n\r\n"))
	line, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAnonymizer(t, testKey)
	var out bytes.Buffer
	if _, err := a.Stream(context.Background(), bytes.NewReader(line), &out, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "s3cr3t") {
		t.Errorf("the credential survived: %s", out.String())
	}
	got, err := capture.NewReader(&out).Next()
	if err != nil || got.Rejected == nil || got.Rejected.Head != "" || got.Rejected.HeadBytes != 80 || got.Capture != capture.VersionRejected {
		t.Errorf("anonymized %+v (%+v), %v; want a format-2 record with no head", got, got.Rejected, err)
	}
}
