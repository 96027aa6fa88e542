package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
)

// TestEngines runs whsim's exports through the real load engines, vegeta
// and k6, into whsim listen; a script skips, saying why, when its engine is
// not installed (scripts/install-tools.sh installs the pinned versions).
// The engines' own directory, $(go env GOPATH)/bin, is put on PATH.
//
// A skipped script reads as ok in go test's output: where the engines
// are installed on purpose (.ci/run sets WHSIM_TEST_ENGINES=required),
// a missing one fails the test instead, so that CI never passes export's
// engine scripts by skipping them.
func TestEngines(t *testing.T) {
	gobin := ""
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		gobin = filepath.Join(strings.TrimSpace(string(out)), "bin")
	}
	if os.Getenv("WHSIM_TEST_ENGINES") == "required" {
		for _, engine := range []string{"vegeta", "k6"} {
			if _, err := exec.LookPath(engine); err != nil {
				if _, err := os.Stat(filepath.Join(gobin, engine)); gobin == "" || err != nil {
					t.Errorf("WHSIM_TEST_ENGINES=required, and %s is neither on PATH nor in %s: scripts/install-tools.sh %s", engine, gobin, engine)
				}
			}
		}
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/engines",
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("NO_COLOR", "")
			env.Setenv("K6_NO_USAGE_REPORT", "true")
			if gobin != "" {
				env.Setenv("PATH", gobin+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"waitfile":   waitFile,
			"envfile":    envFile,
			"sameids":    sameIDs,
			"signed":     signed,
			"distinct":   distinct,
			"redirector": redirector,
			"tlsrecv":    tlsRecv,
			"runprinted": runPrinted,
		},
	})
}

// sameIDs checks that a capture holds every exported call exactly once:
// sameids <capture> vegeta|k6 <exported file>
func sameIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sameids <capture> vegeta|k6 <file>")
	}
	var got []string
	for _, rec := range readCapture(ts, args[0]) {
		body, err := rec.RequestBody()
		ts.Check(err)
		got = append(got, requestID(ts, body))
	}
	var want []string
	b, err := os.ReadFile(ts.MkAbs(args[2]))
	ts.Check(err)
	switch args[1] {
	case "vegeta":
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var t struct{ Body []byte }
			ts.Check(json.Unmarshal(sc.Bytes(), &t))
			want = append(want, requestID(ts, t.Body))
		}
	case "k6":
		var calls []struct{ RequestID string }
		ts.Check(json.Unmarshal(b, &calls))
		for _, c := range calls {
			want = append(want, c.RequestID)
		}
	default:
		ts.Fatalf("sameids: %q is not vegeta or k6", args[1])
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(slices.Compact(slices.Clone(want))) != len(want) {
		ts.Fatalf("the export repeats a requestId")
	}
	if !slices.Equal(got, want) {
		ts.Fatalf("captured %d calls (%d distinct), exported %d: not each exactly once",
			len(got), len(slices.Compact(slices.Clone(got))), len(want))
	}
}

// signed checks every captured call's Standard Webhooks signature against a
// secret: signed <capture> <secret>
func signed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signed <capture> <secret>")
	}
	s, err := sign.NewSigner(args[1])
	ts.Check(err)
	for _, rec := range readCapture(ts, args[0]) {
		body, err := rec.RequestBody()
		ts.Check(err)
		id, sig := rec.Headers.Get("Webhook-Id"), rec.Headers.Get("Webhook-Signature")
		stamp, err := strconv.ParseInt(rec.Headers.Get("Webhook-Timestamp"), 10, 64)
		ts.Check(err)
		want := reqid.Read(body)
		if want == "" {
			// A body without a requestId: the id replay --sign makes.
			want = (&attempt.Request{Body: body}).ReplayWebhookID(true)
		}
		if id != want || sig != s.Signature(id, stamp, body) {
			ts.Fatalf("call %d: webhook-id %q, signature %q do not match its body", rec.Capture, id, sig)
		}
	}
}

// distinct checks that a capture holds at least n calls, each with its
// own requestId: distinct <capture> <n>
func distinct(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: distinct <capture> <n>")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	ids := map[string]bool{}
	recs := readCapture(ts, args[0])
	for _, rec := range recs {
		body, err := rec.RequestBody()
		ts.Check(err)
		ids[requestID(ts, body)] = true
	}
	if len(recs) < want || len(ids) != len(recs) {
		ts.Fatalf("%d calls with %d requestIds, want at least %d, each its own", len(recs), len(ids), want)
	}
}

func readCapture(ts *testscript.TestScript, name string) []*capture.Record {
	f, err := os.Open(ts.MkAbs(name))
	ts.Check(err)
	defer f.Close()
	var out []*capture.Record
	r := capture.NewReader(f)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		ts.Check(err)
		out = append(out, rec)
	}
}

func requestID(ts *testscript.TestScript, body []byte) string {
	id := reqid.Read(body)
	if id == "" {
		ts.Fatalf("a body without a requestId: %.80s", body)
	}
	return id
}

// redirector starts a receiver that answers every POST with a 302 to a
// page that answers a GET 200 (as a login wall or a moved endpoint does),
// and writes its URL to a file: redirector <file>. It stops with the
// script.
func redirector(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: redirector <file>")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_, _ = io.Copy(io.Discard, r.Body)
			http.Redirect(w, r, "/landed", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	ts.Defer(srv.Close)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(srv.URL+"/"), 0o644))
}

// tlsRecv starts an https receiver on a certificate of its own and writes
// its URL (with a trailing /) and its CA's PEM: tlsrecv <url file> <ca file>.
// It answers as holdingReceiver does.
func tlsRecv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tlsrecv <url file> <ca file>")
	}
	srv := httptest.NewUnstartedServer(holdingReceiver())
	srv.StartTLS()
	ts.Defer(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), ca, 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(srv.URL+"/"), 0o644))
}

// holdingReceiver never answers a POST to /hold: it holds the call until
// its caller gives up (the request's context ends with the connection),
// then drops the connection with no answer, so a call there ends by the
// caller's time limit whatever the machine's load (an answer written as
// the caller went was read by k6 as a late success); any other POST gets
// a 200.
func holdingReceiver() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/hold" {
			<-r.Context().Done()
			panic(http.ErrAbortHandler) // net/http closes the connection, writing nothing
		}
		_, _ = io.WriteString(w, "ok")
	})
}

// TestEnginesDocsSayWhatCIRuns: the docs' word on which engine tests CI
// runs is what .ci/run does. It said "vegeta, not k6" long after CI began
// to install k6 and to fail on a missing engine, which sent a reader to run
// a test by hand that CI already runs.
func TestEnginesDocsSayWhatCIRuns(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	concepts, err := os.ReadFile("../../docs/concepts.md")
	if err != nil {
		t.Fatal(err)
	}
	_, para, ok := strings.Cut(string(concepts), "**Tested with the real engines.**")
	if !ok {
		t.Fatal("docs/concepts.md has no paragraph **Tested with the real engines.**")
	}
	para, _, _ = strings.Cut(para, "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	var install []string
	for _, line := range strings.Split(string(ci), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "bash" && f[1] == "scripts/install-tools.sh" {
			install = f[2:]
		}
	}
	for _, engine := range []string{"vegeta", "k6"} {
		if slices.Contains(install, engine) && strings.Contains(para, "not "+engine) {
			t.Errorf(".ci/run installs %s, yet docs/concepts.md says CI does not: %q", engine, para)
		}
	}
	if strings.Contains(string(ci), "WHSIM_TEST_ENGINES=required") && !strings.Contains(para, "WHSIM_TEST_ENGINES=required") {
		t.Errorf(".ci/run fails on a missing engine (WHSIM_TEST_ENGINES=required); docs/concepts.md does not say so: %q", para)
	}
}

// The receiver reach.txtar holds calls on never answers a call at /hold,
// not even to a caller that has given up. It answered 200 the moment its
// caller's connection ended, and a caller giving up closes its side in
// steps (a TLS caller writes close_notify, then closes the socket): k6
// read that 200 in between, counted the call as a success 302 ms into a
// 300 ms limit, and TestEngines/reach failed now and then. A caller that
// says it is done writing (as a TLS close_notify does) reads nothing.
func TestHoldingReceiverAnswersNoCallerThatGaveUp(t *testing.T) {
	srv := httptest.NewUnstartedServer(holdingReceiver())
	srv.StartTLS()
	defer srv.Close()
	conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: certPool(srv.Certificate())})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
		t.Fatal(err)
	}
	if err := conn.CloseWrite(); err != nil { // the caller gives up
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(conn) // ends with the connection, or its reset
	if len(answer) > 0 {
		t.Errorf("a caller that gave up on /hold was answered %q", answer)
	}
}

func certPool(cert *x509.Certificate) *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// runPrinted runs the commands an export printed on stderr (saved in a
// file) as printed, each through sh in the script's directory, so that a
// test holds them, not a hand-made copy: runprinted one|two <file>. one
// runs the one-machine command (the first line after "Run them" or "Run
// it once"); two runs the split, if printed, then both machines' commands
// at once, then the report of both, if printed. kubectl's are left: there
// is no cluster. A command that fails fails the script.
func runPrinted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != "one" && args[0] != "two") {
		ts.Fatalf("usage: runprinted one|two <file>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var one, split, report string
	var machines []string
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		cmd, ok := strings.CutPrefix(line, "  ")
		switch {
		case !ok:
		case i > 0 && one == "" && strings.Contains(lines[i-1], " Run "):
			one = cmd
		case strings.HasPrefix(cmd, "split "):
			split = cmd
		case strings.HasPrefix(cmd, "machine "):
			_, m, _ := strings.Cut(cmd, ": ")
			machines = append(machines, m)
		case strings.HasPrefix(cmd, "vegeta report "):
			report = cmd
		}
	}
	env := os.Environ()
	for _, name := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "WEBHOOK_SECRET", "SSL_CERT_FILE", "K6_NO_USAGE_REPORT", "NO_COLOR"} {
		env = append(env, name+"="+ts.Getenv(name))
	}
	start := func(line string) (*exec.Cmd, *strings.Builder) {
		var out strings.Builder
		c := exec.Command("sh", "-c", line)
		c.Dir, c.Env, c.Stdout, c.Stderr = ts.Getenv("WORK"), env, &out, &out
		ts.Check(c.Start())
		return c, &out
	}
	run := func(lines ...string) {
		cmds := make([]*exec.Cmd, len(lines))
		outs := make([]*strings.Builder, len(lines))
		for i, line := range lines {
			cmds[i], outs[i] = start(line)
		}
		for i, c := range cmds {
			err := c.Wait()
			ts.Logf("$ %s\n%s", lines[i], outs[i])
			if err != nil {
				ts.Fatalf("%s: %v", lines[i], err)
			}
		}
	}
	if args[0] == "one" {
		if one == "" {
			ts.Fatalf("%s prints no command for one machine", args[1])
		}
		run(one)
		return
	}
	if len(machines) != 2 {
		ts.Fatalf("%s prints %d commands for machines, want 2", args[1], len(machines))
	}
	if split != "" {
		run(split)
	}
	run(machines...)
	if report != "" {
		run(report)
	}
}
