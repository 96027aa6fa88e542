package replay

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

func TestOneIsByteForByte(t *testing.T) {
	t.Parallel()
	body := []byte("{\"requestId\":\"r-1\",\"data\":{\"x\":\"\xff\"}}") // not UTF-8: base64 in the record
	rec := &capture.Record{
		Method: "POST", Path: "/hook", Query: "businessType=CREATE_RECEIVABLE_DOC&x=1",
		Headers: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Authorization": {"Bearer s3cret"},
			"Content-Length": {"999"}, "X-Erp": {"a", "b"}},
	}
	rec.SetBody(body)
	var got *http.Request
	var gotBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotBody = r, must(io.ReadAll(r.Body))
		w.Header().Set("X-Answer", "yes")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "queued")
	}))
	defer srv.Close()

	res := One(context.Background(), rec, srv.URL+"/erp?tenant=7")
	if res.Error != "" || res.Status != 202 || res.Body != "queued" || res.Headers.Get("X-Answer") != "yes" || res.LatencyMS <= 0 {
		t.Fatalf("replayed = %+v", res)
	}
	if !bytes.Equal(gotBody, body) {
		t.Errorf("body %q, want %q", gotBody, body)
	}
	if got.Method != "POST" || got.URL.Path != "/erp" || got.URL.RawQuery != "tenant=7&businessType=CREATE_RECEIVABLE_DOC&x=1" {
		t.Errorf("request %s %s", got.Method, got.URL)
	}
	if got.Header.Get("Authorization") != "Bearer s3cret" || strings.Join(got.Header["X-Erp"], ",") != "a,b" ||
		got.Header.Get("Content-Type") != "application/json; charset=utf-8" || got.ContentLength != int64(len(body)) {
		t.Errorf("headers %v (length %d)", got.Header, got.ContentLength)
	}
	if ua, ok := got.Header["User-Agent"]; ok {
		t.Errorf("a call that came without a User-Agent went with %q", ua)
	}

	dead := One(context.Background(), rec, "http://127.0.0.1:1/")
	if dead.Error == "" || dead.Status != 0 {
		t.Errorf("replay to a closed port = %+v", dead)
	}
}

// The inspector's replay of a call whose body listen did not keep sends
// nothing: an empty body would be a call the sender never made.
func TestOneRefusesABodyNotKept(t *testing.T) {
	t.Parallel()
	sent := false
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent = true }))
	defer srv.Close()
	rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", BodyOverLimit: 100}
	res := One(context.Background(), rec, srv.URL)
	if want := "its body was over listen's --max-body of 100 bytes and was not kept"; res.Error != want || res.Status != 0 {
		t.Errorf("replayed = %+v, want error %q", res, want)
	}
	srv.Close() // waits for a call in flight: sent is read after it
	if sent {
		t.Error("a call was sent")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
