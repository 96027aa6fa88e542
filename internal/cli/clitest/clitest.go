// Package clitest runs whsim's command line in-process for the tests of
// the commands under internal/cli: buffers for the streams, a fixed clock
// and build, and the receiver and capture files those tests deliver to. A
// command's test that runs the command line is an external test package
// (package sendcmd_test), since cli imports the command.
package clitest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli"
	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// Run runs whsim in-process with buffers and a fixed clock.
func Run(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, cmdutil.Build{Version: "v1.2.3", Commit: "abc", Date: "2026-11-22"},
		func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) })
	code = cli.Execute(context.Background(), a, args)
	return code, out.String(), errb.String()
}

// Execute runs args on a's command tree, as Main does without the signals.
func Execute(ctx context.Context, a *cmdutil.App, args []string) int {
	return cli.Execute(ctx, a, args)
}

// Call is what a test receiver saw.
type Call struct {
	Method, Path, Query, ContentType string
	Header                           http.Header
	Body                             []byte
}

// Receiver records every call it answers; read Calls once the run is over.
type Receiver struct {
	mu    sync.Mutex
	Calls []Call
}

// NewReceiver starts a receiver answering status, closed when the test ends.
func NewReceiver(t testing.TB, status int) (*Receiver, *httptest.Server) {
	rc := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.Calls = append(rc.Calls, Call{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Clone(), b})
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return rc, srv
}

// WriteCapture writes recs as a capture file, torn (a record cut short)
// after them, and returns its name.
func WriteCapture(t testing.TB, recs []capture.Record, torn string) string {
	t.Helper()
	var b []byte
	for i := range recs {
		var err error
		if b, err = capture.Append(b, &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	b = append(b, torn...)
	name := filepath.Join(t.TempDir(), "capture.ndjson")
	os.WriteFile(name, b, 0o600)
	return name
}
