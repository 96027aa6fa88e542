package cli

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/sendout"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/jobsummary"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
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
		return cmdutil.Usagef("--report %s: no directory %s", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return cmdutil.Usagef("--report %s: is a directory", path)
	}
	return nil
}

// writeReport writes an HTML report whole, replacing the file at once. A
// report that cannot be written is whsim's failure, not the receiver's:
// exit 2 whatever the verdict.
func writeReport(a *cmdutil.App, path string, write func(io.Writer) error) error {
	// 0600: a report shows requests and answers, which may hold what the
	// receiver or the user would not publish.
	if err := atomicfile.Write(path, 0o600, write); err != nil {
		return cmdutil.Usagef("--report: %w", err)
	}
	fmt.Fprintf(a.Streams.Err, "%s report written to %s\n", a.ErrColor.Key.Sprint("whsim:"), path)
	return nil
}

// appendJobSummary adds a run's section to the job summary; a file that
// cannot be written is said on stderr and leaves the run's verdict as it is.
func appendJobSummary(a *cmdutil.App, s *jobsummary.Summary) {
	path := stepSummary()
	if path == "" || s == nil {
		return
	}
	if err := jobsummary.Append(path, s); err != nil {
		fmt.Fprintf(a.Streams.Err, "%s %v\n", a.ErrColor.Warn.Sprint("warning:"), err)
	}
}

// reportMeta is what a report says of the run.
func reportMeta(a *cmdutil.App, title, target string) htmlreport.Meta {
	return htmlreport.Meta{Title: title, Target: target, Version: a.Build.String(), Started: a.Now()}
}

// sendReports writes --report and the job summary of a finished run.
// interrupted: Ctrl-C stopped it, which neither report may call a pass.
func sendReports(a *cmdutil.App, opts *sendOptions, rec *htmlreport.SendRecorder, con *sendout.Console, st *load.Stats, target *url.URL, interrupted bool) error {
	sum := sendout.SendSummary{Stats: st, Name: "whsim send", Note: con.Note, Thresholds: con.Thresholds()}
	js := sum.AppendJSON(nil)
	text := string(sum.AppendText(nil, &term.Style{}))
	where := termsafe.Text(termsafe.URL(target))
	data := htmlreport.NewSend(rec, js, text)
	data.Interrupted = interrupted
	if stepSummary() != "" {
		var fails []jobsummary.Failure
		for _, f := range data.Failures {
			why := fmt.Sprintf("status %d", f.Status)
			if f.Status == 0 {
				why = f.Kind
				if f.Error != "" {
					why += ": " + f.Error
				}
			}
			if len(fails) < jobsummary.MaxFailures {
				fails = append(fails, jobsummary.Failure{Title: fmt.Sprintf("#%d %s %s", f.Seq, f.Event, f.RequestID), Reason: termsafe.Text(why)})
			}
		}
		pass := st.Failed == 0 && len(threshold.Failed(con.Thresholds())) == 0
		s := jobsummary.Send(js, where, pass, fails, st.Failed-len(fails))
		s.Interrupted = interrupted
		if opts.Report != "" {
			s.Note = "The full report, with latency over time: " + filepath.Base(opts.Report)
			s.Full = filepath.Base(opts.Report)
		}
		appendJobSummary(a, s)
	}
	if opts.Report == "" {
		return nil
	}
	m := reportMeta(a, "whsim send", where)
	return writeReport(a, opts.Report, func(w io.Writer) error { return htmlreport.WriteSend(w, m, data) })
}
