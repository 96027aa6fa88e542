package reportfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// A JUnit file that cannot be written is said on stderr and exits 2
// whatever the verdict: a passing run, a failing run with nothing more to
// say, a failing run whose own message is said first.
func TestWriteJUnitFailureExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "gone", "report.xml")
	for _, tc := range []struct {
		name    string
		run     error
		saidRun string
	}{
		{"pass", nil, ""},
		{"failed", cmdutil.ErrChecksFailed, ""},
		{"failed-said", &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: errors.New("1 of 1 thresholds failed: p99<1ms")}, "whsim: 1 of 1 thresholds failed: p99<1ms\n"},
	} {
		var errb bytes.Buffer
		a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &errb}, cmdutil.Build{}, time.Now)
		buf := bytes.NewBufferString("<testsuites/>\n")
		err := WriteJUnit(a, missing, buf, tc.run, "whsim send", "whsim.delivery")
		if cmdutil.CodeOf(err, true) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--junit: ") {
			t.Errorf("%s: %v (exit %d), want exit 2 naming --junit", tc.name, err, cmdutil.CodeOf(err, true))
		}
		if errb.String() != tc.saidRun {
			t.Errorf("%s: stderr %q, want %q", tc.name, errb.String(), tc.saidRun)
		}
	}

	// Written: the run's report, else its error as one case in error.
	ok := filepath.Join(dir, "ok.xml")
	a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, cmdutil.Build{}, time.Now)
	if err := WriteJUnit(a, ok, &bytes.Buffer{}, cmdutil.Usagef("--url: no host"), "whsim send", "whsim.delivery"); cmdutil.CodeOf(err, true) != cmdutil.ExitUsage {
		t.Fatalf("the run's usage error became %v", err)
	}
	b, err := os.ReadFile(ok)
	if err != nil || !bytes.Contains(b, []byte(`<error message="--url: no host" type="error">`)) {
		t.Errorf("%v\n%s", err, b)
	}
}

// A run a signal stopped before its report (validate reading a pipe)
// leaves one case in error that says it was interrupted, not Go's
// "context canceled" of the reader it stopped.
func TestWriteJUnitInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, run := range []error{cmdutil.ErrInterrupted, fmt.Errorf("validate: <stdin>: %w", context.Canceled)} {
		path := filepath.Join(dir, fmt.Sprintf("%d.xml", i))
		a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, cmdutil.Build{}, time.Now)
		_ = WriteJUnit(a, path, &bytes.Buffer{}, run, "whsim validate", "whsim.validate")
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(b, []byte(`<error message="interrupted (Ctrl-C or SIGTERM) before the run could report: no verdict"`)) {
			t.Errorf("%v: %v\n%s", run, err, b)
		}
	}
}
