package reportfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// FinishReport leaves --report as the run wrote it, else makes the file
// say why the run has no report of its own; it never writes over a file
// the run could not have written (refused before the run) or one of its
// inputs, and always returns the run's error.
func TestFinishReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const old = "OLD PASS"
	usage := cmdutil.Usagef("--timeout 0s: want more than 0")
	for _, tc := range []struct {
		name    string
		path    string // "" for no --report; else a name in dir
		junit   string
		written bool
		run     error
		input   string
		want    string // in the file after, old when left as it was
	}{
		{"no report", "", "", false, usage, "", ""},
		{"written by the run", "written.html", "", true, usage, "", old},
		{"ended well", "ok.html", "", false, nil, "", old},
		{"usage error", "usage.html", "", false, usage, "", `"notRun":{"verdict":"incomplete","headline":"the run did not complete: --timeout 0s: want more than 0"}`},
		{"interrupted", "int.html", "", false, cmdutil.ErrInterrupted, "", `"verdict":"interrupted","headline":"the run did not complete: interrupted (Ctrl-C or SIGTERM) before the run could report: no verdict"`},
		{"reader canceled", "canceled.html", "", false, fmt.Errorf("send: <stdin>: %w", context.Canceled), "", `"verdict":"interrupted"`},
		{"junit's file", "same.xml", "same.xml", false, usage, "", old},
		{"the run's input", "input.ndjson", "", false, usage, "input.ndjson", old},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errb bytes.Buffer
			a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &errb}, cmdutil.Build{}, time.Now)
			path, junit, input := tc.path, tc.junit, tc.input
			for _, p := range []*string{&path, &junit, &input} {
				if *p != "" {
					*p = filepath.Join(dir, *p)
				}
			}
			if path != "" {
				if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := FinishReport(a, path, junit, tc.written, tc.run, "whsim check", input); !errors.Is(err, tc.run) && err != tc.run {
				t.Errorf("returned %v, want the run's %v", err, tc.run)
			}
			if errb.Len() > 0 {
				t.Errorf("stderr %q, want nothing", errb.String())
			}
			if path == "" {
				return
			}
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), tc.want) {
				t.Errorf("%v: the file holds %.200q, want %q", err, b, tc.want)
			}
		})
	}
}

// A directory refused before the run stays a directory, and the run's
// own error is what the user sees, not one about the report.
func TestFinishReportRefusedPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &errb}, cmdutil.Build{}, time.Now)
	usage := cmdutil.Usagef("--count 0: want at least 1")
	for _, path := range []string{dir, filepath.Join(dir, "gone", "r.html")} {
		if err := FinishReport(a, path, "", false, usage, "whsim send"); err != usage {
			t.Errorf("%s: returned %v, want the run's %v", path, err, usage)
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("%s: %v", dir, err)
	}
	if errb.Len() > 0 {
		t.Errorf("stderr %q, want nothing", errb.String())
	}
}

// A report that cannot be written (the disk full halfway) exits 2 and
// leaves no earlier run's report in its place to be archived as this
// one's.
func TestWriteReportFailureRemovesEarlier(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.html")
	if err := os.WriteFile(path, []byte("OLD PASS"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, cmdutil.Build{}, time.Now)
	full := errors.New("no space left on device")
	err := WriteReport(a, path, func(w io.Writer) error { return full })
	if cmdutil.CodeOf(err, true) != cmdutil.ExitUsage || !errors.Is(err, full) {
		t.Errorf("%v, want exit 2 with the write's error", err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the earlier report is still there: %v", err)
	}
}

// A --junit file that cannot be written (a full disk) does not leave the
// earlier run's file to be read as this one's, as a report does not.
func TestWriteJUnitFailureRemovesEarlier(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.xml")
	if err := os.WriteFile(path, []byte(`<testsuites tests="1" failures="0"/>`), 0o600); err != nil {
		t.Fatal(err)
	}
	a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, cmdutil.Build{}, time.Now)
	full := errors.New("no space left on device")
	err := writeJUnit(a, path, nil, func(w io.Writer) error { return full })
	if cmdutil.CodeOf(err, true) != cmdutil.ExitUsage || !errors.Is(err, full) {
		t.Errorf("%v, want exit 2 with the write's error", err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the earlier JUnit file is still there: %v", err)
	}
}

// Reserve replaces an earlier run's --junit and --report with files that
// say this run did not finish, for an end that writes nothing; a path
// written in place (a device) gets nothing, as what it took cannot be
// taken back when the run writes its own.
func TestReserve(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junit, report := filepath.Join(dir, "j.xml"), filepath.Join(dir, "r.html")
	for _, p := range []string{junit, report} {
		if err := os.WriteFile(p, []byte("OLD PASS"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := cmdutil.NewApp(cmdutil.Streams{Out: io.Discard, Err: io.Discard}, cmdutil.Build{}, time.Now)
	if err := Reserve(a, junit, report, "whsim check", "whsim.check"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		junit:  `<error message="whsim ended before it could report`,
		report: `"notRun":{"verdict":"incomplete","headline":"the run did not complete: whsim ended before it could report`,
	} {
		if b, _ := os.ReadFile(p); !strings.Contains(string(b), want) {
			t.Errorf("%s holds:\n%s\nwant %s", filepath.Base(p), b, want)
		}
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		// Written through, /dev/full would fail the write.
		if err := Reserve(a, "/dev/full", "/dev/full", "whsim check", "whsim.check"); err != nil {
			t.Errorf("a device was written: %v", err)
		}
	}
}

// A file Reserve could not write is not tried again at the run's end (its
// error would be said twice); the other file says that error.
func TestReserveFailureNotTriedAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{Out: io.Discard, Err: &errb}, cmdutil.Build{}, time.Now)
	junit, report := filepath.Join(dir, "j.xml"), filepath.Join(dir, "r.html")
	for _, tc := range []struct {
		name string
		err  error
		// wantJUnit and wantReport are in the files after, "" for none.
		wantJUnit, wantReport string
	}{
		{"--junit not reserved", cmdutil.UsageErr(unreserved{errors.New("--junit: disk full"), true}), "", "the run did not complete: --junit: disk full"},
		{"--report not reserved", cmdutil.UsageErr(unreserved{errors.New("--report: disk full"), false}), `<error message="--report: disk full"`, ""},
	} {
		os.Remove(junit)
		os.Remove(report)
		errb.Reset()
		err := FinishReport(a, report, junit, false, tc.err, "whsim check")
		err = WriteJUnit(a, junit, &bytes.Buffer{}, err, "whsim check", "whsim.check")
		if err != tc.err {
			t.Errorf("%s: returned %v, want the run's error", tc.name, err)
		}
		if errb.Len() > 0 {
			t.Errorf("%s: said again: %s", tc.name, errb.String())
		}
		for path, want := range map[string]string{junit: tc.wantJUnit, report: tc.wantReport} {
			b, rerr := os.ReadFile(path)
			if want == "" && rerr == nil || want != "" && !strings.Contains(string(b), want) {
				t.Errorf("%s: %s holds %q (%v), want %q", tc.name, filepath.Base(path), b, rerr, want)
			}
		}
	}
}
