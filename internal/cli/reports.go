package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/jobsummary"
)

// stepSummary is the file GitHub Actions reads the job summary from, ""
// outside Actions.
func stepSummary() string { return os.Getenv(jobsummary.Env) }

// checkReportPath refuses a --report file that cannot be written before the
// run starts rather than after it.
func checkReportPath(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("--report %s: no directory %s", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("--report %s: is a directory", path)
	}
	return nil
}

// writeReport writes an HTML report whole, replacing the file at once.
func writeReport(a *app, path string, write func(io.Writer) error) error {
	if err := atomicfile.Write(path, 0o644, write); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(a.streams.Err, "%s report written to %s\n", a.errColor.Key.Sprint("whsim:"), path)
	return nil
}

// appendJobSummary adds a run's section to the job summary; a file that
// cannot be written is said on stderr and leaves the run's verdict as it is.
func appendJobSummary(a *app, s *jobsummary.Summary) {
	path := stepSummary()
	if path == "" || s == nil {
		return
	}
	if err := jobsummary.Append(path, s.Markdown()); err != nil {
		fmt.Fprintf(a.streams.Err, "%s %v\n", a.errColor.Warn.Sprint("warning:"), err)
	}
}

// reportMeta is what a report says of the run.
func reportMeta(a *app, title, target string) htmlreport.Meta {
	return htmlreport.Meta{Title: title, Target: target, Version: a.build.String(), Started: a.now()}
}
