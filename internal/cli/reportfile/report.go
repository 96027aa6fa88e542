package reportfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/jobsummary"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// StepSummary is the file GitHub Actions reads the job summary from, ""
// outside Actions.
func StepSummary() string { return os.Getenv(jobsummary.Env) }

// CheckReportPath refuses a --report file that cannot be written before the
// run starts rather than after it, and one that is the run's --junit file
// (junit): one would overwrite the other after the first was said written;
// and one that is a file the run reads (inputs), which it would replace.
func CheckReportPath(path, junit string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if path == "-" {
		// curl's and gh's stdout; here it made a file named "-".
		return cmdutil.Usagef("--report -: want a file name: the HTML report is written to a file, not to stdout, which carries --output (./- names a file called -)")
	}
	if junit != "" && sameFile(path, junit) {
		return cmdutil.Usagef("--report %s and --junit %s are one file: give each its own", path, junit)
	}
	if in, ok := NamesInput(path, inputs); ok {
		return cmdutil.Usagef("--report %s: is %s, an input of this run; give the report a file of its own", path, in)
	}
	if err := cmdutil.FileDir("--report", path); err != nil {
		return cmdutil.UsageErr(err)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return cmdutil.Usagef("--report %s: is a directory", path)
	}
	if err := atomicfile.Creatable(path); err != nil {
		return cmdutil.Usagef("--report %s: cannot be written: %w", path, causeOf(err))
	}
	return nil
}

// CheckApart refuses a --junit (junit) or --report (report) file that is
// output, a file the run writes itself (name says which: "--save-cases'
// results.ndjson"): the report replaced it at the run's end, after a run
// that said ok, or it the report.
func CheckApart(junit, report, output, name string) error {
	if output == "" {
		return nil
	}
	if junit != "" && sameFile(junit, output) {
		return cmdutil.UsageErr(JUnitPathError{fmt.Errorf("--junit %s: is %s, which the run writes; give the report a file of its own", junit, name)})
	}
	if report != "" && sameFile(report, output) {
		return cmdutil.Usagef("--report %s: is %s, which the run writes; give the report a file of its own", report, name)
	}
	return nil
}

// FinishReport makes --report FILE (path) describe this run however it
// ended, as --junit does: a run that wrote no report of its own (written
// false: a flag refused after --report was read, a --duration over before
// the first call, Ctrl-C before any result) writes one headed INCOMPLETE
// or INTERRUPTED saying why (err), so that no earlier run's report can be
// archived as this one's. A file CheckReportPath refuses (junit's, a
// directory, one that cannot be written) is left alone: there is nothing
// this run could write there; so is one of the run's inputs (--rerun's,
// --file's), which a mistyped flag must not destroy. The run's own error
// is returned; a report that cannot be written is said on stderr beside
// it and exits 2.
func FinishReport(a *cmdutil.App, path, junit string, written bool, err error, title string, inputs ...string) error {
	if u, ok := errors.AsType[unreserved](err); ok && !u.junit || path == "" || written || err == nil || CheckReportPath(path, junit, inputs...) != nil {
		return err
	}
	why := err.Error()
	interrupted := errors.Is(err, cmdutil.ErrInterrupted) || errors.Is(err, context.Canceled)
	if interrupted {
		why = InterruptedWhy
	}
	m := Meta(a, title, "")
	werr := atomicfile.Write(path, 0o600, func(w io.Writer) error { return htmlreport.WriteNotRun(w, m, interrupted, why) })
	if werr == nil {
		return err
	}
	_ = atomicfile.RemoveReplaced(path)
	if ee, ok := errors.AsType[*cmdutil.ExitError](err); !ok || ee.Err != nil {
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Key.Sprint("whsim:"), termsafe.Text(err.Error()))
	}
	return cmdutil.Usagef("--report: %w", werr)
}

// UnfinishedWhy is what Reserve's files say: why a run left them.
const UnfinishedWhy = "whsim ended before it could report (killed, out of memory, or by SIGPIPE when its stdout's reader went away)"

// Reserve writes, once the run's flags are checked and before it starts,
// what --junit (junit: one test case in error) and --report (report:
// headed INCOMPLETE) say of a run that never wrote them, each saying
// UnfinishedWhy. The run's end replaces them; an end that writes nothing
// (whsim killed, or ended by SIGPIPE: | head -1) leaves them, not an
// earlier run's files to be read as this one's. A path written in place
// (a device, a FIFO, /dev/stdout) is left for the end: nothing written
// there is taken back. A file that cannot be written is exit 2.
func Reserve(a *cmdutil.App, junit, report, title, class string) error {
	if junit != "" && !atomicfile.InPlace(junit) {
		if err := atomicfile.Write(junit, 0o644, func(w io.Writer) error {
			return term.WriteJUnitError(w, title, class, UnfinishedWhy)
		}); err != nil {
			_ = atomicfile.RemoveReplaced(junit)
			return cmdutil.UsageErr(unreserved{fmt.Errorf("--junit: %w", err), true})
		}
	}
	if report != "" && !atomicfile.InPlace(report) {
		m := Meta(a, title, "")
		if err := atomicfile.Write(report, 0o600, func(w io.Writer) error {
			return htmlreport.WriteNotRun(w, m, false, UnfinishedWhy)
		}); err != nil {
			_ = atomicfile.RemoveReplaced(report)
			return cmdutil.UsageErr(unreserved{fmt.Errorf("--report: %w", err), false})
		}
	}
	return nil
}

// unreserved is Reserve's error: a file it could not write (--junit's
// when junit, else --report's), which the run's end does not try again
// (and say again); the other file says this error.
type unreserved struct {
	error
	junit bool
}

func (e unreserved) Unwrap() error { return e.error }

// WriteReport writes an HTML report whole, replacing the file at once. A
// report that cannot be written is whsim's failure, not the receiver's:
// exit 2 whatever the verdict.
func WriteReport(a *cmdutil.App, path string, write func(io.Writer) error) error {
	// 0600: a report shows requests and answers, which may hold what the
	// receiver or the user would not publish.
	if err := atomicfile.Write(path, 0o600, write); err != nil {
		// An earlier run's report is not left to be read as this one's.
		_ = atomicfile.RemoveReplaced(path)
		return cmdutil.Usagef("--report: %w", err)
	}
	fmt.Fprintf(a.Streams.Err, "%s report written to %s\n", a.ErrColor.Key.Sprint("whsim:"), path)
	return nil
}

// AppendJobSummary adds a run's section to the job summary; a file that
// cannot be written is said on stderr and leaves the run's verdict as it is.
func AppendJobSummary(a *cmdutil.App, s *jobsummary.Summary) {
	path := StepSummary()
	if path == "" || s == nil {
		return
	}
	a.Summarized = true
	if err := jobsummary.Append(path, s); err != nil {
		fmt.Fprintf(a.Streams.Err, "%s %v\n", a.ErrColor.Warn.Sprint("warning:"), err)
	}
}

// FinishJobSummary appends the section of a run that ended with err and
// appended none of its own (title: "whsim check"): a flag cobra refused, a
// flag the command refused, a config file it could not read, Ctrl-C
// before any result. Its --junit and --report say why; the job summary
// said nothing, where CI users look first. The section says the run did
// not complete (or was interrupted), with err as code: a flag's value is
// the user's, or a config file's, and never becomes markup.
func FinishJobSummary(a *cmdutil.App, title string, err error) {
	if err == nil || a.Summarized || StepSummary() == "" {
		return
	}
	s := &jobsummary.Summary{Title: title}
	ee, coded := errors.AsType[*cmdutil.ExitError](err)
	switch {
	case errors.Is(err, cmdutil.ErrInterrupted) || errors.Is(err, context.Canceled):
		s.Interrupted = true
		s.Headline = InterruptedWhy
	case coded && ee.Code == cmdutil.ExitFailed:
		// A verdict (validate of no payload at all): FAIL, and why.
		if ee.Err != nil {
			s.Headline = termsafe.Text(ee.Err.Error())
		}
	default:
		s.Unfinished = termsafe.Text(err.Error())
	}
	AppendJobSummary(a, s)
}

// Meta is what a report says of the run.
func Meta(a *cmdutil.App, title, target string) htmlreport.Meta {
	return htmlreport.Meta{Title: title, Target: target, Version: a.Build.String(), Started: a.Now()}
}

// NamesInput says whether path names one of inputs, the files a run reads
// ("-", stdin, is none), and which.
func NamesInput(path string, inputs []string) (string, bool) {
	for _, in := range inputs {
		if in != "" && in != "-" && sameFile(path, in) {
			return in, true
		}
	}
	return "", false
}

// NotOver clears each of paths that names one of inputs, for a run that
// never began: such a file may be one the run would have read (an
// argument cobra never parsed), and is left as it is.
func NotOver(inputs []string, paths ...*string) {
	for _, p := range paths {
		if _, ok := NamesInput(*p, inputs); ok {
			*p = ""
		}
	}
}

// sameFile says whether two paths name one file: the same path once
// cleaned, or, when both exist, one file under two names (a link).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
