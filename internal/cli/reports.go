package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/check"
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
		return usagef("--report %s: no directory %s", path, dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("--report %s: is a directory", path)
	}
	return nil
}

// writeReport writes an HTML report whole, replacing the file at once.
func writeReport(a *app, path string, write func(io.Writer) error) error {
	// 0600: a report shows requests and answers, which may hold what the
	// receiver or the user would not publish.
	if err := atomicfile.Write(path, 0o600, write); err != nil {
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
	if err := jobsummary.Append(path, s); err != nil {
		fmt.Fprintf(a.streams.Err, "%s %v\n", a.errColor.Warn.Sprint("warning:"), err)
	}
}

// reportMeta is what a report says of the run.
func reportMeta(a *app, title, target string) htmlreport.Meta {
	return htmlreport.Meta{Title: title, Target: target, Version: a.build.String(), Started: a.now()}
}

// checkReports writes --report and the job summary of a finished run.
func checkReports(a *app, opts *checkOptions, col *term.Collector, rec *htmlreport.CheckRecorder, target *url.URL, seed uint64, ids []string, sum *check.Summary) error {
	if col == nil || sum == nil {
		return nil
	}
	where := termsafe.Text(target.Redacted())
	js := jobsummary.FromCollector(col, "whsim check", "check", !sum.Failed())
	js.Target = where
	js.Interrupted = sum.Interrupted != nil
	if opts.Report != "" {
		js.Note = "The full report, with every failure's request and answer: " + filepath.Base(opts.Report)
		js.Full = filepath.Base(opts.Report)
	}
	appendJobSummary(a, js)
	if opts.Report == "" {
		return nil
	}
	return writeCheckReport(a, opts, col, rec, where, seed, ids, nil)
}

// writeCheckReport writes check's HTML report to path; why, when not nil,
// is why the run did not complete, and heads the report.
func writeCheckReport(a *app, opts *checkOptions, col *term.Collector, rec *htmlreport.CheckRecorder, where string, seed uint64, ids []string, why error) error {
	path := opts.Report
	m := reportMeta(a, "whsim check", where)
	// The command runs as printed: what the run needed (the probe, the
	// secret as a placeholder, the headers) besides the URL and seed.
	var header http.Header
	if rec != nil {
		header = rec.Header
	}
	m.Command = fmt.Sprintf("%s --seed %d --checks %s", checkCommand(where, header, opts.Secret != "", opts), seed, strings.Join(ids, ","))
	data := htmlreport.NewCheck(col, rec, check.Checks(), seed)
	if why != nil {
		data.Failed = true
		data.Headline = "the run did not complete: " + termsafe.Text(why.Error())
		if data.Text == "" {
			data.Text = data.Headline
		}
	}
	return writeReport(a, path, func(w io.Writer) error { return htmlreport.WriteCheck(w, m, data) })
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sendReports writes --report and the job summary of a finished run.
func sendReports(a *app, opts *sendOptions, rec *htmlreport.SendRecorder, con *term.Console, st *load.Stats, target *url.URL) error {
	sum := term.SendSummary{Stats: st, Name: "whsim send", Note: con.Note, Thresholds: con.Thresholds()}
	js := sum.AppendJSON(nil)
	text := string(sum.AppendText(nil, &term.Style{}))
	where := termsafe.Text(target.Redacted())
	data := htmlreport.NewSend(rec, js, text)
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

// checkAbortReport writes --report of a run that started and ended in
// an error of its input (the receiver unreachable, the probe at fault):
// the cases graded before it, and the headline why it did not complete.
// A usage error before the run writes nothing: there is nothing to show.
func checkAbortReport(a *app, opts *checkOptions, col *term.Collector, rec *htmlreport.CheckRecorder, target *url.URL, seed uint64, ids []string, why error) {
	if opts.Report == "" || col == nil {
		return
	}
	// The run's error is the one to exit with: a report that cannot be
	// written is said beside it.
	if err := writeCheckReport(a, opts, col, rec, termsafe.Text(target.Redacted()), seed, ids, why); err != nil {
		fmt.Fprintf(a.streams.Err, "%s %v\n", a.errColor.Key.Sprint("whsim:"), err)
	}
}
