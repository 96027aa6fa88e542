package delivery_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/termsafe"
)

// hostile is what a sender or a receiver may put in a query, a header or a
// body: an OSC 52 clipboard write, a clear-screen, a C1 NEL, a bidi
// override and a byte that is not UTF-8.
const hostile = "\x1b]52;c;aGk=\x07\x1b[2J\u0085\u202e\xff"

// assertTermSafe fails when out holds anything a terminal would act on.
func assertTermSafe(t *testing.T, what, out string) {
	t.Helper()
	if termsafe.Lines(out) != out {
		t.Errorf("%s is not terminal-safe:\n%q", what, out)
	}
}

// Replay and send print what came from outside (a captured businessType,
// the receiver's headers and body) terminal-safe in every output mode, and
// mask auth-like response headers in JSON as in text.
func TestDeliveryOutputTerminalSafe(t *testing.T) {
	t.Chdir(t.TempDir())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Auth-Token", "tok-secret-123")
		w.Header().Set("X-Note", "\u0085\u202eevil")
		w.WriteHeader(200)
		w.Write([]byte(`{"ok":"` + "\u0085\u202e" + `"}`))
	}))
	t.Cleanup(srv.Close)
	rec := capture.Record{Method: "POST", Path: "/in", Query: "businessType=" + url.QueryEscape(hostile),
		Headers: http.Header{"Content-Type": {"application/json"}}}
	rec.SetBody([]byte(`{"requestId":"11111111-1111-4111-8111-111111111111","businessType":5007,"data":{}}`))
	file := clitest.WriteCapture(t, []capture.Record{rec}, "")

	for _, args := range [][]string{
		{"replay", file, "--url", srv.URL},
		{"replay", file, "--url", srv.URL, "-v"},
		{"replay", file, "--url", srv.URL, "--output", "json"},
		{"replay", file, "--url", srv.URL, "--output", "json", "-v"},
		{"replay", file, "--url", srv.URL, "--output", "junit"},
		{"send", "--url", srv.URL, "--event", "CREATE_RECEIVABLE_DOC", "--output", "json", "-v"},
		{"send", "--url", srv.URL, "--event", "CREATE_RECEIVABLE_DOC", "-v"},
	} {
		name := strings.Join(args[2:], " ")
		code, stdout, stderr := clitest.Run(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
		assertTermSafe(t, name+": stdout", stdout)
		assertTermSafe(t, name+": stderr", stderr)
		if strings.Contains(stdout, "tok-secret-123") {
			t.Errorf("%s: the X-Auth-Token value is printed:\n%s", name, stdout)
		}
	}
}
