package replaycmd_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/input"
)

func TestReplay(t *testing.T) {
	t.Chdir(t.TempDir())
	body1 := "{\"requestId\":\"11111111-1111-4111-8111-111111111111\", \"businessType\":5007,\"data\":{\"收款单\":{\"x\":1.50}}}\n"
	body2 := "{\"requestId\":\"22222222-2222-4222-8222-222222222222\",\"businessType\":4011,\"data\":{}}"
	recs := []capture.Record{
		{Method: "POST", Path: "/orig", Query: "businessType=CREATE_RECEIVABLE_DOC&x=1",
			Headers: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Trace": {"t1"}, "Content-Length": {"99"}}},
		{Method: "POST", Path: "/orig", Query: "businessType=AUDIT_PURCHASE_ORDER_INVOICE",
			Headers: http.Header{"Content-Type": {"application/json"}}},
	}
	recs[0].SetBody([]byte(body1))
	recs[1].SetBody([]byte(body2))
	file := clitest.WriteCapture(t, recs, "")
	torn := clitest.WriteCapture(t, recs, `{"capture":1,"time":"2026-`)

	t.Run("byte for byte, in order", func(t *testing.T) {
		rc, srv := clitest.NewReceiver(t, 200)
		code, stdout, stderr := clitest.Run(t, "replay", file, "--url", srv.URL+"/new?tenant=2")
		if code != 0 || len(rc.Calls) != 2 || stderr != "" {
			t.Fatalf("exit %d, %d calls, stderr %s", code, len(rc.Calls), stderr)
		}
		c := rc.Calls[0]
		if string(c.Body) != body1 || c.Path != "/new" || c.Query != "tenant=2&businessType=CREATE_RECEIVABLE_DOC&x=1" ||
			c.ContentType != "application/json; charset=utf-8" || c.Header.Get("X-Trace") != "t1" {
			t.Errorf("first replayed call %+v", c)
		}
		if string(rc.Calls[1].Body) != body2 {
			t.Errorf("second body %q", rc.Calls[1].Body)
		}
		if !strings.Contains(stdout, "succeeded 2") {
			t.Errorf("stdout %q", stdout)
		}
	})
	t.Run("a torn last line is skipped, and the replay is incomplete", func(t *testing.T) {
		rc, srv := clitest.NewReceiver(t, 200)
		code, stdout, stderr := clitest.Run(t, "replay", torn, "--url", srv.URL)
		if code != 2 || len(rc.Calls) != 2 {
			t.Fatalf("exit %d, %d calls, stderr %s", code, len(rc.Calls), stderr)
		}
		if !strings.Contains(stderr, "capture.ndjson:3: "+input.TornLine(false)) || !strings.Contains(stdout, "succeeded 2") ||
			!strings.Contains(stdout, "incomplete: 1 line was skipped, not replayed") {
			t.Errorf("stdout %q\nstderr %q", stdout, stderr)
		}
	})
	t.Run("new request id changes only the id", func(t *testing.T) {
		rc, srv := clitest.NewReceiver(t, 200)
		code, _, _ := clitest.Run(t, "replay", file, "--url", srv.URL, "--new-request-id", "--event", "CREATE_RECEIVABLE_DOC")
		if code != 0 || len(rc.Calls) != 1 {
			t.Fatalf("exit %d, %d calls", code, len(rc.Calls))
		}
		got := string(rc.Calls[0].Body)
		const old = "11111111-1111-4111-8111-111111111111"
		i := strings.Index(body1, old)
		if got[i:i+36] == old || got[:i] != body1[:i] || got[i+36:] != body1[i+36:] {
			t.Errorf("replayed %q from %q", got, body1)
		}
	})
	t.Run("errors", func(t *testing.T) {
		code, _, stderr := clitest.Run(t, "replay", "missing.ndjson", "--url", "http://127.0.0.1:1/")
		if code != 2 || !strings.Contains(stderr, "missing.ndjson") {
			t.Errorf("exit %d stderr %q", code, stderr)
		}
		code, _, stderr = clitest.Run(t, "replay", file)
		if code != 2 || !strings.Contains(stderr, "--url") {
			t.Errorf("exit %d stderr %q", code, stderr)
		}
	})
}
