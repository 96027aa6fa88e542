package sendcmd

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/cli/sendout"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/jobsummary"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
)

// sendReports writes --report and the job summary of a finished run.
// interrupted: Ctrl-C stopped it; incomplete, when set, is why it ended
// before it sent all it was given (a stream's payload refused): neither
// report may call such a run a pass.
func sendReports(a *cmdutil.App, opts *sendOptions, rec *htmlreport.SendRecorder, con *sendout.Console, st *load.Stats, target *url.URL, interrupted bool, incomplete string) error {
	sum := sendout.SendSummary{Stats: st, Name: "whsim send", Note: con.Note, Thresholds: con.Thresholds(), Incomplete: incomplete}
	js := sum.AppendJSON(nil)
	text := string(sum.AppendText(nil, &term.Style{}))
	where := termsafe.Text(termsafe.URL(target))
	data := htmlreport.NewSend(rec, js, text)
	data.Interrupted = interrupted
	if reportfile.StepSummary() != "" {
		var fails []jobsummary.Failure
		for _, f := range data.Failures {
			// The start of the answer, as send's line, its JUnit and the
			// report show it; code in the summary, never markup.
			why := fmt.Sprintf("status %d", f.Status)
			if f.Answer != "" {
				why += ": " + f.Answer
			}
			if f.Status == 0 {
				why = f.Kind
				if f.Error != "" {
					why += ": " + f.Error
				}
				if f.Taken != "" {
					why += " " + f.Taken
				}
			}
			if len(fails) < jobsummary.MaxFailures {
				fails = append(fails, jobsummary.Failure{Title: fmt.Sprintf("#%d %s", f.Seq, f.Event), ID: f.RequestID, Reason: termsafe.Text(why)})
			}
		}
		pass := st.Failed == 0 && st.Unasked == 0 && len(threshold.Failed(con.Thresholds())) == 0 && incomplete == ""
		s := jobsummary.Send(js, where, pass, fails, st.Failed-len(fails))
		s.Interrupted = interrupted
		s.Unfinished = termsafe.Text(incomplete)
		if opts.Report != "" {
			s.Note = "The full report, with latency over time: " + filepath.Base(opts.Report)
			s.Full = filepath.Base(opts.Report)
		}
		reportfile.AppendJobSummary(a, s)
	}
	if opts.Report == "" {
		return nil
	}
	opts.reported = true
	m := reportfile.Meta(a, "whsim send", where)
	return reportfile.WriteReport(a, opts.Report, func(w io.Writer) error { return htmlreport.WriteSend(w, m, data) })
}
