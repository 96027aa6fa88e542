package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/inspect"
)

func TestReplayCallIsByteForByte(t *testing.T) {
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

	res := replayCall(context.Background(), rec, srv.URL+"/erp?tenant=7")
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

	dead := replayCall(context.Background(), rec, "http://127.0.0.1:1/")
	if dead.Error == "" || dead.Status != 0 {
		t.Errorf("replay to a closed port = %+v", dead)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestInspectUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", filepath.Join(dir, "missing.ndjson"), "--ui", "127.0.0.1:0"}, "missing.ndjson"},
		{[]string{"inspect"}, "accepts 1 arg"},
		{[]string{"inspect", filepath.Join(dir, "x"), "--origin", "ftp://x"}, "--origin"},
		{[]string{"listen", "--addr", "127.0.0.1:0", "--ui", "nonsense"}, "--ui nonsense"},
		{[]string{"listen", "--addr", "127.0.0.1:8931", "--ui", "127.0.0.1:8931"}, "the webhook's address"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("whsim %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), code, stderr, ExitUsage, tt.want)
		}
	}
}

func TestInspectorWarnsOffLoopback(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		var errb bytes.Buffer
		a := &app{streams: Streams{Out: io.Discard, Err: &errb}, errColor: newPalette(false)}
		ctx, cancel := context.WithCancel(context.Background())
		ui, err := startInspector(ctx, a, tt.addr, inspect.Options{Store: inspect.NewStore(1)})
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := <-ui.done; err != nil {
			t.Errorf("%s: serve: %v", tt.addr, err)
		}
		if got := strings.Contains(errb.String(), "warning: inspector on"); got != tt.warn || !(strings.HasPrefix(ui.url, "http://127.0.0.1:") || strings.HasPrefix(ui.url, "http://[::1]:")) {
			t.Errorf("--ui %s: url %s, stderr %q (want a warning: %v)", tt.addr, ui.url, errb.String(), tt.warn)
		}
	}
}
