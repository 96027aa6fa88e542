// Package reportfile is the files a run writes for CI beside its output:
// --junit's JUnit XML (send, replay, validate, check), --report's HTML
// (send, check) and the GitHub Actions job summary (send, validate,
// check). Each is refused before the run when it could not be written, and
// a file that cannot be written is whsim's failure, exit 2.
package reportfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// JUnit is --junit FILE of send, replay and validate: the run's JUnit
// report, kept until the run ends and then written whole, beside the
// output on stdout.
type JUnit struct {
	Path string
	buf  bytes.Buffer
}

// Register declares --junit on cmd; what says what its cases are.
func (j *JUnit) Register(cmd *cobra.Command, what string) {
	cmdutil.PathFlag(cmd, &j.Path, "junit", "", false, "also write a JUnit XML report to this file ("+what+")")
	_ = cmd.MarkFlagFilename("junit", "xml")
}

// Writer is where the run's JUnit report goes; nil without --junit.
func (j *JUnit) Writer() io.Writer {
	if j.Path == "" {
		return nil
	}
	return &j.buf
}

// Finish writes --junit whatever the end of the run (err): the report when
// the run made one, else one test case in error saying why.
func (j *JUnit) Finish(a *cmdutil.App, err error, title, class string) error {
	if j.Path == "" {
		return err
	}
	return WriteJUnit(a, j.Path, &j.buf, err, title, class)
}

// WriteJUnit writes a JUnit file: buf when the run wrote its report
// there, else the run's error (err) as one test case in error. A file that
// cannot be written is said on stderr and exits 2 whatever the verdict:
// CI would read a stale file, or none, as the run's result. The run's own
// error is said first, so that nothing it had to say is lost.
func WriteJUnit(a *cmdutil.App, path string, buf *bytes.Buffer, err error, title, class string) error {
	_, refused := errors.AsType[JUnitPathError](err)
	u, unwritten := errors.AsType[unreserved](err)
	if (buf.Len() == 0 && err == nil) || refused || unwritten && u.junit {
		// Refused before the run, or not written at its start: there is
		// no file to write it in.
		return err
	}
	if buf.Len() == 0 && CheckJUnitPath(path) != nil {
		// The run ended (a flag refused) before it checked the file, which
		// it would have refused (read-only, a directory): left alone, as
		// FinishReport leaves such a --report, not replaced by the error.
		return err
	}
	why := ""
	if err != nil {
		why = err.Error()
		// A signal's cancellation, wrapped by the reader it stopped
		// ("validate: <stdin>: context canceled"), is no message for CI.
		if errors.Is(err, cmdutil.ErrInterrupted) || errors.Is(err, context.Canceled) {
			why = InterruptedWhy
		}
	}
	return writeJUnit(a, path, err, func(w io.Writer) error {
		if buf.Len() > 0 {
			_, err := w.Write(buf.Bytes())
			return err
		}
		return term.WriteJUnitError(w, title, class, why)
	})
}

// writeJUnit writes the JUnit file at path with write, for a run that
// ended with err (see WriteJUnit).
func writeJUnit(a *cmdutil.App, path string, err error, write func(io.Writer) error) error {
	werr := atomicfile.Write(path, 0o644, write)
	if werr == nil {
		return err
	}
	// An earlier run's file is not left to be read as this one's, as
	// WriteReport does not leave an earlier report.
	_ = atomicfile.RemoveReplaced(path)
	if ee, ok := errors.AsType[*cmdutil.ExitError](err); err != nil && (!ok || ee.Err != nil) {
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Key.Sprint("whsim:"), termsafe.Text(err.Error()))
	}
	return cmdutil.Usagef("--junit: %w", werr)
}

// InterruptedWhy is why a run a signal stopped has no report of its own.
const InterruptedWhy = "interrupted (Ctrl-C or SIGTERM) before the run could report: no verdict"

// JUnitPathError is a --junit file refused before the run (CheckJUnitPath).
type JUnitPathError struct{ error }

func (e JUnitPathError) Unwrap() error { return e.error }

// CheckJUnitPath refuses a --junit file that could not be written, before
// the run rather than after it, and one that is a file the run reads
// (inputs), which the report would replace.
func CheckJUnitPath(name string, inputs ...string) error {
	if name == "" {
		return nil
	}
	if name == "-" {
		// curl's and gh's stdout; here it made a file named "-".
		return cmdutil.UsageErr(JUnitPathError{fmt.Errorf("--junit -: want a file name: the JUnit report is written to a file, not to stdout, which carries --output (./- names a file called -)")})
	}
	if in, ok := NamesInput(name, inputs); ok {
		return cmdutil.UsageErr(JUnitPathError{fmt.Errorf("--junit %s: is %s, an input of this run; give the report a file of its own", name, in)})
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return cmdutil.UsageErr(JUnitPathError{fmt.Errorf("--junit %s: is a directory", name)})
	}
	if err := cmdutil.FileDir("--junit", name); err != nil {
		return cmdutil.UsageErr(JUnitPathError{err})
	}
	if err := atomicfile.Creatable(name); err != nil {
		return cmdutil.UsageErr(JUnitPathError{fmt.Errorf("--junit %s: cannot be written: %w", name, causeOf(err))})
	}
	return nil
}

// causeOf is what went wrong with a file the message already names.
func causeOf(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
