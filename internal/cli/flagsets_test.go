package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// runErr runs whsim in-process as runCLI does and returns the command's
// error itself, not the exit code it maps to.
func runErr(t *testing.T, args ...string) error {
	t.Helper()
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Build{},
		func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) })
	root := newRootCmd(a, "")
	root.SetArgs(args)
	_, err := root.ExecuteContextC(context.Background())
	return err
}

// A usage error keeps its cause: errors.Is and errors.As see through it
// to the file system's error, and it still exits 2.
func TestUsageErrorsKeepTheirCause(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	under := filepath.Join(file, "sub") // a path under a regular file
	// No call is made: each refuses its flags first. The port is never dialled.
	url := "http://127.0.0.1:9/hook"
	tests := []struct {
		args []string
		is   error
		path bool // errors.As finds the *fs.PathError too
	}{
		{[]string{"send", "--url", url, "--event", "CREATE_RECEIVABLE_DOC", "--cacert", missing}, fs.ErrNotExist, true},
		{[]string{"check", "--url", url, "--cacert", missing}, fs.ErrNotExist, true},
		{[]string{"send", "--url", url, "--file", missing}, fs.ErrNotExist, false},
		{[]string{"export", "k6", "--url", url, "--count", "1", "--out", under}, syscall.ENOTDIR, true},
		{[]string{"generate", "--event", "CREATE_RECEIVABLE_DOC", "--out", under}, syscall.ENOTDIR, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			err := runErr(t, tt.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if got := cmdutil.CodeOf(err, true); got != cmdutil.ExitUsage {
				t.Errorf("%v: exit %d, want %d", err, got, cmdutil.ExitUsage)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("%v: errors.Is(%v) is false: the chain was flattened", err, tt.is)
			}
			var pe *fs.PathError
			if tt.path && !errors.As(err, &pe) {
				t.Errorf("%v: errors.As(*fs.PathError) is false", err)
			}
		})
	}
}

// send, replay, check and export share one --timeout default, and the flags of a
// set have one help wherever they are taken.
func TestFlagSetsAgree(t *testing.T) {
	a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, Build{}, time.Now)
	root := newRootCmd(a, "")
	usages := map[string]map[string]string{} // flag → command → help
	defs := map[string]map[string]string{}
	for _, path := range [][]string{{"send"}, {"replay"}, {"check"}, {"generate"}, {"export", "vegeta"}, {"export", "k6"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"url", "timeout", "header", "insecure", "cacert", "event", "shape", "set", "unset", "fixed-ids"} {
			f := cmd.Flags().Lookup(name)
			if f == nil {
				continue
			}
			if usages[name] == nil {
				usages[name], defs[name] = map[string]string{}, map[string]string{}
			}
			usages[name][cmd.CommandPath()] = f.Usage
			defs[name][cmd.CommandPath()] = f.DefValue
		}
	}
	// Where the meaning differs, the help does too (flagsets.go says why).
	differs := map[string]string{"whsim replay header": "", "whsim replay event": "", "whsim check fixed-ids": ""}
	for name, by := range usages {
		first := map[string]string{}
		for cmd, u := range by {
			if _, ok := differs[cmd+" "+name]; ok {
				continue
			}
			first[u+"\x00"+defs[name][cmd]] = cmd
		}
		if len(first) > 1 {
			t.Errorf("--%s: help or default differs between %v", name, first)
		}
	}
	// export hands send's to its engines (vegeta's own is 30 s, k6's 60 s).
	want := cmdutil.DefaultTimeout.String()
	if got := defs["timeout"]; len(got) != 5 || got["whsim check"] != want || got["whsim send"] != want || got["whsim export vegeta"] != want || got["whsim export k6"] != want {
		t.Errorf("--timeout defaults %v, want %s in send, replay, check and export's two", got, cmdutil.DefaultTimeout)
	}
}
