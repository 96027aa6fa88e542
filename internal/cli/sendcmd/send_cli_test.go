package sendcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/spec"
)

func TestSendEachEventAndShape(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, shape := range spec.ShapeNames() {
		for _, e := range spec.Events() {
			for _, userQuery := range []string{"", "?tenant=7"} {
				t.Run(e.Name+"/"+shape+userQuery, func(t *testing.T) {
					rc, srv := clitest.NewReceiver(t, 200)
					code, stdout, stderr := clitest.Run(t, "send", "--url", srv.URL+"/hook"+userQuery, "--event", e.Name,
						"--shape", shape, "--seed", "5", "-H", "X-Tenant: 7")
					if code != 0 || stderr != "" {
						t.Fatalf("exit %d, stderr %q", code, stderr)
					}
					if len(rc.Calls) != 1 {
						t.Fatalf("%d calls", len(rc.Calls))
					}
					c := rc.Calls[0]
					wantQuery := "businessType=" + e.Name
					if userQuery != "" {
						wantQuery = "tenant=7&" + wantQuery
					}
					if c.Method != "POST" || c.Path != "/hook" || c.Query != wantQuery || c.ContentType != "application/json" || c.Header.Get("X-Tenant") != "7" {
						t.Errorf("receiver saw %s %s?%s content-type %q", c.Method, c.Path, c.Query, c.ContentType)
					}
					var env struct {
						RequestID    string          `json:"requestId"`
						BusinessType int             `json:"businessType"`
						Data         json.RawMessage `json:"data"`
					}
					if err := json.Unmarshal(c.Body, &env); err != nil {
						t.Fatal(err)
					}
					if env.BusinessType != e.NumberFor(spec.Shape(shape)) || len(env.RequestID) != 36 || len(env.Data) < 100 {
						t.Errorf("body %s", c.Body)
					}
					if !strings.HasPrefix(stdout, e.Name) || !strings.Contains(stdout, env.RequestID+" 200 ") || !strings.Contains(stdout, "succeeded 1") {
						t.Errorf("stdout %q", stdout)
					}
				})
			}
		}
	}
}

func TestSendExitCodes(t *testing.T) {
	t.Chdir(t.TempDir())
	_, ok := clitest.NewReceiver(t, 200)
	_, bad := clitest.NewReceiver(t, 503)
	os.WriteFile("invoice.json", []byte(`{"requestId":"r","businessType":4000,"data":{}}`), 0o644)
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--url", ok.URL, "--event", "all", "-n", "2"}, 0, "succeeded 8", ""},
		{[]string{"--url", bad.URL, "--event", "CREATE_RECEIVABLE_DOC"}, 1, "failed by status: 503×1", ""},
		{[]string{"--url", bad.URL, "--event", "CREATE_RECEIVABLE_DOC", "--expect-status", "503"}, 0, "succeeded 1", ""},
		{[]string{"--url", "http://127.0.0.1:1/", "--event", "CREATE_RECEIVABLE_DOC"}, 1, "connection refused", "whsim: cannot reach http://127.0.0.1:1/: connection refused\n"},
		{[]string{"--url", "ftp://x", "--event", "CREATE_RECEIVABLE_DOC"}, 2, "", "want an http:// or https:// URL"},
		{[]string{"--url", "http://%zz", "--event", "CREATE_RECEIVABLE_DOC"}, 2, "", "--url"},
		{[]string{"--url", ok.URL, "--event", "NOPE"}, 2, "", `unknown event "NOPE"`},
		{[]string{"--url", ok.URL, "--file", "missing.json"}, 2, "", "--file: missing.json: no such file or directory"},
		{[]string{"--url", ok.URL, "--file", "invoice.json"}, 2, "", "businessType 4000 stands for CREATE_PURCHASE_ORDER_INVOICE or AUDIT_PURCHASE_ORDER_INVOICE"},
		{[]string{"--url", ok.URL, "--file", "invoice.json", "--event", "AUDIT_PURCHASE_ORDER_INVOICE"}, 0, "AUDIT_PURCHASE_ORDER_INVOICE", ""},
		{[]string{"--url", ok.URL, "-H", "no colon"}, 2, "", `--header "no colon": want 'Name: value'`},
		{[]string{"--url", ok.URL, "--sign", "standard", "--secret", "whsec_!!notbase64"}, 2, "", "secret after whsec_ is not base64"},
		{[]string{"--url", ok.URL, "--sign", "standard"}, 2, "", "needs --secret"},
		{[]string{"--url", ok.URL, "--expect-status", "2x"}, 2, "", "--expect-status"},
		{[]string{"--url", ok.URL, "--duplicate", "2"}, 2, "", "--duplicate 2"},
		{[]string{"--url", ok.URL, "--scenario", "nope"}, 2, "", `--scenario "nope"`},
		{[]string{"--url", ok.URL, "--cacert", "invoice.json"}, 2, "", "no PEM certificate"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := clitest.Run(t, append([]string{"send"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", code, tt.code, stdout, tt.stdout, stderr, tt.stderr)
			}
			if strings.Count(stderr, "whsim:") > 1 || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}

func TestSendSecretNeverPrinted(t *testing.T) {
	t.Chdir(t.TempDir())
	rc, srv := clitest.NewReceiver(t, 200)
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	code, stdout, stderr := clitest.Run(t, "send", "--url", srv.URL, "--event", "CREATE_RECEIVABLE_DOC", "--sign", "standard", "--secret", secret, "-v", "-o", "json")
	if code != 0 || len(rc.Calls) != 1 || !strings.HasPrefix(rc.Calls[0].Header.Get("Webhook-Signature"), "v1,") {
		t.Fatalf("exit %d, calls %d", code, len(rc.Calls))
	}
	if strings.Contains(stdout+stderr, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") {
		t.Error("the secret was printed")
	}
}

func TestSendScenarioDuplicatesShuffle(t *testing.T) {
	t.Chdir(t.TempDir())
	rc, srv := clitest.NewReceiver(t, 200)
	code, stdout, _ := clitest.Run(t, "send", "--url", srv.URL, "--scenario", "invoice-lifecycle", "-n", "20", "--seed", "3",
		"--duplicate", "0.25", "--shuffle", "-c", "4", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var sum struct {
		Summary struct{ Sent, Duplicates int }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	s := sum.Summary
	if s.Sent != 40+s.Duplicates || s.Duplicates == 0 || len(rc.Calls) != s.Sent || len(lines) != s.Sent+1 {
		t.Fatalf("summary %+v, %d calls, %d lines", s, len(rc.Calls), len(lines))
	}
	// Each invoice's create and audit carry the same document; audits say PASS or REFUSAL.
	byCode := map[string][]string{}
	for _, c := range rc.Calls {
		var env struct {
			Data struct{ InvoiceCode, Status string } `json:"data"`
		}
		json.Unmarshal(c.Body, &env)
		byCode[env.Data.InvoiceCode] = append(byCode[env.Data.InvoiceCode], c.Query)
		if strings.Contains(c.Query, "AUDIT") && env.Data.Status != "PASS" && env.Data.Status != "REFUSAL" {
			t.Errorf("audit status %q", env.Data.Status)
		}
	}
	if len(byCode) != 20 {
		t.Errorf("%d invoices, want 20", len(byCode))
	}
	for code, qs := range byCode {
		if !slicesHas(qs, "businessType=CREATE_PURCHASE_ORDER_INVOICE") || !slicesHas(qs, "businessType=AUDIT_PURCHASE_ORDER_INVOICE") {
			t.Errorf("invoice %s got %v", code, qs)
		}
	}
}

func slicesHas(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestSendNoURLUsesOwnReceiver(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, stderr := clitest.Run(t, "send", "--event", "ABANDON_RECEIVABLE_DOC")
	if code != 0 || !strings.Contains(stderr, "no --url: sending to whsim's own receiver at http://127.0.0.1:") ||
		!strings.Contains(stderr, "POST /webhook  ABANDON_RECEIVABLE_DOC  requestId=") ||
		!strings.Contains(stderr, "built-in receiver saw: 1 call in") || !strings.Contains(stderr, "by verdict: valid 1") ||
		!strings.Contains(stdout, "ABANDON_RECEIVABLE_DOC") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

func TestSendInterruptedPrintsSummary(t *testing.T) {
	t.Chdir(t.TempDir())
	_, srv := clitest.NewReceiver(t, 200)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the first delivery
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, cmdutil.Build{}, time.Now)
	code := clitest.Execute(ctx, a, []string{"send", "--url", srv.URL, "-n", "1000"})
	// No delivery line came: the summary starts stdout, no blank line
	// above it.
	if code != cmdutil.ExitInterrupted || !strings.HasPrefix(out.String(), "sent ") {
		t.Errorf("exit %d, stdout %q", code, out.String())
	}
}

// A receiver whose certificate does not verify: the failure line gives the
// x509 reason and the two ways out. --insecure on http:// verifies
// nothing, so it is not said to skip verifying: it is said to do nothing.
func TestSendTLSFailureSaysWhyAndWhatToDo(t *testing.T) {
	t.Chdir(t.TempDir())
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake error it logs is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	code, stdout, stderr := clitest.Run(t, "send", "--url", srv.URL, "--event", "CREATE_RECEIVABLE_DOC")
	for _, want := range []string{"x509: certificate signed by unknown authority", "--cacert", "--insecure"} {
		if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want %q in both\nstdout %s\nstderr %s", code, want, stdout, stderr)
		}
	}
	_, plain := clitest.NewReceiver(t, 200)
	code, _, stderr = clitest.Run(t, "send", "--url", plain.URL, "--insecure", "--event", "CREATE_RECEIVABLE_DOC")
	if code != 0 || stderr != "warning: --insecure does nothing: the URL is http://, no TLS\n" {
		t.Errorf("--insecure on http://: exit %d, stderr %q", code, stderr)
	}
}

// runTTY runs whsim with stdout and stderr as terminals.
func runTTY(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: true, ErrTTY: true}, cmdutil.Build{}, time.Now)
	code = clitest.Execute(context.Background(), a, append(args, "--no-color"))
	return code, out.String(), errb.String()
}

// On a terminal send shows failures and the summary, not a line per
// delivery; --each (or stdout not a terminal) prints every line. --count
// with several events says it is per event.
func TestSendOnATerminal(t *testing.T) {
	t.Chdir(t.TempDir())
	_, ok := clitest.NewReceiver(t, 200)
	_, bad := clitest.NewReceiver(t, 503)
	lines := func(s string) int { return strings.Count(s, "CREATE_RECEIVABLE_DOC ") }

	code, stdout, _ := runTTY(t, "send", "--url", ok.URL, "--event", "CREATE_RECEIVABLE_DOC", "-n", "20")
	if code != 0 || lines(stdout) != 0 || !strings.Contains(stdout, "sent 20  succeeded 20") {
		t.Errorf("terminal: exit %d, %d delivery lines\n%s", code, lines(stdout), stdout)
	}
	_, stdout, _ = runTTY(t, "send", "--url", ok.URL, "--event", "CREATE_RECEIVABLE_DOC", "-n", "20", "--each")
	if lines(stdout) != 20 {
		t.Errorf("--each: %d delivery lines, want 20\n%s", lines(stdout), stdout)
	}
	_, stdout, _ = clitest.Run(t, "send", "--url", ok.URL, "--event", "CREATE_RECEIVABLE_DOC", "-n", "20")
	if lines(stdout) != 20 {
		t.Errorf("not a terminal: %d delivery lines, want 20", lines(stdout))
	}
	code, stdout, _ = runTTY(t, "send", "--url", bad.URL, "--event", "CREATE_RECEIVABLE_DOC", "-n", "3")
	if code != 1 || lines(stdout) != 3 || !strings.Contains(stdout, "503") {
		t.Errorf("failures on a terminal: exit %d, %d lines\n%s", code, lines(stdout), stdout)
	}
	_, stdout, _ = runTTY(t, "send", "--url", ok.URL, "--event", "CREATE_RECEIVABLE_DOC")
	if lines(stdout) != 1 {
		t.Errorf("one delivery on a terminal: %d lines, want 1\n%s", lines(stdout), stdout)
	}
	_, stdout, _ = clitest.Run(t, "send", "--url", ok.URL, "--event", "all", "-n", "2")
	if !strings.Contains(stdout, "--count 2 per event: 4 events × 2") {
		t.Errorf("several events: no per-event note\n%s", stdout)
	}
}
