package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// junitFile is --junit FILE of send, replay and validate: the run's JUnit
// report, kept until the run ends and then written whole, beside the
// output on stdout.
type junitFile struct {
	Path string
	buf  bytes.Buffer
}

func (j *junitFile) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&j.Path, "junit", "", "also write a JUnit XML report to this file ("+what+")")
	_ = cmd.MarkFlagFilename("junit", "xml")
}

// writer is where the run's JUnit report goes; nil without --junit.
func (j *junitFile) writer() io.Writer {
	if j.Path == "" {
		return nil
	}
	return &j.buf
}

// finish writes --junit whatever the end of the run (err): the report when
// the run made one, else one test case in error saying why.
func (j *junitFile) finish(a *cmdutil.App, err error, title, class string) error {
	if j.Path == "" {
		return err
	}
	return writeJUnitFile(a, j.Path, &j.buf, err, title, class)
}

// writeJUnitFile writes a JUnit file: buf when the run wrote its report
// there, else the run's error (err) as one test case in error. A file that
// cannot be written is said on stderr and exits 2 whatever the verdict:
// CI would read a stale file, or none, as the run's result. The run's own
// error is said first, so that nothing it had to say is lost.
func writeJUnitFile(a *cmdutil.App, path string, buf *bytes.Buffer, err error, title, class string) error {
	if _, ok := errors.AsType[junitPathError](err); (buf.Len() == 0 && err == nil) || ok {
		// Refused before the run: there is no file to write it in.
		return err
	}
	why := ""
	if err != nil {
		why = err.Error()
		if errors.Is(err, cmdutil.ErrInterrupted) {
			why = "interrupted before any case was judged"
		}
	}
	werr := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if buf.Len() > 0 {
			_, err := w.Write(buf.Bytes())
			return err
		}
		return term.WriteJUnitError(w, title, class, why)
	})
	if werr == nil {
		return err
	}
	if ee, ok := errors.AsType[*cmdutil.ExitError](err); err != nil && (!ok || ee.Err != nil) {
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Key.Sprint("whsim:"), termsafe.Text(err.Error()))
	}
	return cmdutil.Usagef("--junit: %w", werr)
}

// junitPathError is a --junit file refused before the run (checkJUnitPath).
type junitPathError struct{ error }

func (e junitPathError) Unwrap() error { return e.error }
