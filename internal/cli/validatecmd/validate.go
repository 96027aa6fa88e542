// Package validatecmd is whsim validate: payloads, NDJSON streams and
// capture logs checked against the interface. Its renderers are in
// validateout.
package validatecmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/cli/validateout"
	"github.com/whsim/whsim/internal/jobsummary"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

type validateOptions struct {
	Event  string
	Shape  string
	Strict bool
	Ignore []string
	Output string
	Files  []string
	junit  reportfile.JUnit

	// event is --event, checked (validate).
	event string
}

// New is whsim validate.
func New(a *cmdutil.App) *cobra.Command {
	opts := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [<file>...] [--event <name>] [--shape auto|described|sample] [--strict] [--ignore <rule>]... [--output text|json|junit] [--junit <file>]",
		Short: "Check payloads, NDJSON streams and capture logs against the interface",
		Long: `Check webhook bodies against the spec: strict JSON, the envelope, the event,
every field's type and format, the two invoice shapes, and the arithmetic of
the documents. Errors fail a payload (exit 1); warnings only tell, unless
--strict.

Inputs are files holding one payload, a JSON array of payloads (findings
name the element), NDJSON files (one payload per line; findings name the
line: a file whose first line is a whole JSON value, or named *.ndjson or
*.jsonl) and capture logs written by whsim listen (each record is checked
as the event its captured query names, what was delivered, and its method
and Content-Type as listen checked them when the call came; --event applies
to plain payloads, and a warning on stderr counts the records whose query names
another). No file, or -, reads stdin. An input with no payload at
all fails (exit 1). An input whose first line starts no JSON value (YAML,
text, HTML) is refused in one line saying where and why (exit 2); a payload
that is not JSON further on is a json-syntax finding.

A payload no rule could look at (a capture record with no body: refused,
over --max-body, closed at listen's stop; a record or payload validate
cannot read; a body that is not JSON under --ignore json-syntax) is counted
"not checked", apart from the payloads checked, and never passes: --ignore
drops its finding, not that. A run that checked nothing, none failing, ends
"NOT CHECKED" ("error":"nothing checked") and fails (exit 1).

Rules (--ignore <id> silences one):
` + validate.RuleHelp(),
		Example: `  whsim validate payload.json
  whsim generate --event all --count 100 | whsim validate --strict
  whsim validate --event CREATE_RECEIVABLE_DOC --ignore base-amount receipt.json
  whsim validate captures.ndjson --junit validate.xml`,
		ValidArgsFunction: cmdutil.CompletePayloadFiles,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return opts.finish(a, runValidate(cmd.Context(), a, opts))
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Event, "event", "e", "", "the query event plain payloads were sent with (default: follow the body number; a capture record's own query wins)")
	f.StringVar(&opts.Shape, "shape", validate.ShapeAuto, "body shape: "+strings.Join(validate.ShapeNames(), "|"))
	f.BoolVar(&opts.Strict, "strict", false, "warnings fail a payload too")
	f.StringSliceVar(&opts.Ignore, "ignore", nil, "drop findings of a rule id, repeatable or comma-separated")
	cmdutil.OneLineList(f, "ignore")
	cmdutil.AddOutputFlag(cmd, &opts.Output, "text", "text", "json", "junit")
	opts.junit.Register(cmd, "one testcase per payload, a suite per file")
	a.WhenNotRun(cmd, []string{"junit"}, func(err error, words []string) error {
		reportfile.NotOver(words, &opts.junit.Path)
		return opts.finish(a, err)
	})
	_ = cmd.RegisterFlagCompletionFunc("event", cmdutil.CompleteEvent)
	_ = cmd.RegisterFlagCompletionFunc("shape", cmdutil.CompleteWords(validate.ShapeNames()...))
	_ = cmd.RegisterFlagCompletionFunc("ignore", cmdutil.CompleteList(func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, r := range validate.Rules() {
			out = append(out, r.ID+"\t"+string(r.Severity)+": "+r.Summary)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}))
	return cmd
}

// finish writes --junit and, when the run appended none, its section of
// the job summary, for a run that ended with err, or never began (a flag
// cobra refused).
func (o *validateOptions) finish(a *cmdutil.App, err error) error {
	reportfile.FinishJobSummary(a, "whsim validate", err)
	return o.junit.Finish(a, err, "whsim validate", "whsim.validate")
}

func runValidate(ctx context.Context, a *cmdutil.App, opts *validateOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	defer a.TuneGC()()
	r, err := opts.build(ctx, a)
	if err != nil {
		return err
	}
	defer r.close()
	if err := reportfile.Reserve(a, opts.junit.Path, "", "whsim validate", "whsim.validate"); err != nil {
		return err
	}
	return r.run(ctx)
}

// validate refuses the flags before any input is opened: a --junit file
// that could not be written, an event no payload can be sent with.
func (o *validateOptions) validate() error {
	if err := reportfile.CheckJUnitPath(o.junit.Path, o.Files...); err != nil {
		return err
	}
	event, err := validate.ParseEvent(o.Event)
	if err != nil {
		return cmdutil.Usagef("--event: %w", err)
	}
	o.event = event
	return nil
}

// validateRun is one run: the inputs, checked by the rules the flags
// chose, and the reporters every payload's case goes through.
type validateRun struct {
	a    *cmdutil.App
	opts *validateOptions
	// check checks every input, calling fn with each payload's case.
	check func(ctx context.Context, beforeStdin func(), fn func(validate.Case) error) (validate.Summary, error)
	close func()
	// out is the output the flags chose; rep is out with --junit and the
	// job summary's collector (col, nil outside GitHub Actions) beside it.
	out, rep term.Reporter
	col      *term.Collector
}

// build makes the validator the flags ask for, opens the inputs and the
// reporters.
func (o *validateOptions) build(ctx context.Context, a *cmdutil.App) (*validateRun, error) {
	v, err := validate.New(validate.Options{Shape: o.Shape, Strict: o.Strict, Ignore: o.Ignore})
	if err != nil {
		if _, ok := errors.AsType[*validate.UnknownRuleError](err); ok {
			return nil, cmdutil.UsageErr(fmt.Errorf("--ignore: %w", err))
		}
		return nil, cmdutil.UsageErr(fmt.Errorf("--shape: %w", err))
	}
	// The reporters come before the inputs are opened: a signal while an
	// open waits (a FIFO with no writer yet) still ends stdout with its
	// summary. Nothing is written until a payload is checked.
	r := &validateRun{a: a, opts: o}
	if r.out, err = term.New(o.Output, a.Streams.Out, cmdutil.Style(a.OutColor, false), false); err != nil {
		return nil, cmdutil.Usagef("--output: %w", err)
	}
	r.rep = r.out
	// --junit FILE beside the output; a run that checks nothing leaves it
	// empty, and it is then written as one case in error saying why.
	if w := o.junit.Writer(); w != nil {
		r.rep = term.Tee(r.rep, term.NewJUnit(w, ""))
	}
	// Under GitHub Actions a collector beside the output keeps the run for
	// the job summary.
	if reportfile.StepSummary() != "" {
		r.col = &term.Collector{}
		r.rep = term.Tee(r.rep, r.col)
	}
	files, err := validate.OpenFiles(ctx, o.Files, a.Streams.In)
	if err != nil {
		return nil, r.endedEarly(ctx, validate.Summary{}, err)
	}
	r.close = files.Close
	r.check = func(ctx context.Context, beforeStdin func(), fn func(validate.Case) error) (validate.Summary, error) {
		return v.CheckFiles(ctx, files, o.event, beforeStdin, fn)
	}
	return r, nil
}

// run checks every payload of the inputs, reports each and the summary,
// and decides the exit.
func (r *validateRun) run(ctx context.Context) error {
	st, rep := r.a.Streams, r.rep
	var beforeStdin func()
	if st.InTTY {
		beforeStdin = func() { fmt.Fprintln(st.Err, "whsim: reading payloads from stdin; Ctrl-D to end") }
	}
	// One case value serves every payload (fn is called in turn, and the
	// reporters convert a case as they are told it): a Payload converted
	// to term.Case was a copy on the heap for each, some 75 page faults
	// on a 32 MB capture.
	p := new(validateout.Payload)
	sum, err := r.check(ctx, beforeStdin, func(c validate.Case) error {
		*p = validateout.Payload(c)
		return rep.Case(p)
	})
	if err != nil {
		return r.endedEarly(ctx, sum, err)
	}
	if sum.OtherEvent > 0 {
		fmt.Fprintf(st.Err, "%s --event %s: %d of %d capture %s checked as the event %s captured query names, not as --event: a record holds the query it was delivered with; --event applies to plain payloads\n",
			r.a.ErrColor.Warn.Sprint("warning:"), r.opts.event, sum.OtherEvent, sum.Captures, term.Plural(sum.Captures, "record was", "records were"), term.Plural(sum.Captures, "its", "their"))
	}
	if sum.Array != "" {
		fmt.Fprintf(st.Err, "%s %s holds a JSON array, read as a list of payloads: a webhook body is one object, never an array\n", r.a.ErrColor.Warn.Sprint("warning:"), termsafe.Text(sum.Array))
	}
	if sum.Payloads == 0 && sum.NotChecked > 0 && sum.Failed == 0 {
		return r.nothingChecked(sum)
	}
	if sum.Payloads+sum.NotChecked == 0 {
		noPayloads := errors.New("validate: no payloads")
		switch r.opts.Output {
		case term.Text: // nothing was checked: no "ok" line to be read as a pass
			_ = r.out.Abort()
		case term.JUnit:
			// One case in error, as --junit FILE says it: a report of 0
			// tests reads as nothing failed.
			_ = r.out.Abort()
			if err := term.WriteJUnitError(st.Out, "whsim validate", "whsim.validate", noPayloads.Error()); err != nil {
				return err
			}
		default:
			// "failed":0 alone reads as a pass: the summary says why not.
			if err := r.out.Finish(validateout.ValidateSummary{Summary: sum, Error: "no payloads"}); err != nil {
				return err
			}
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: noPayloads}
	}
	if err := rep.Finish(validateout.ValidateSummary{Summary: sum}); err != nil {
		return err
	}
	if r.col != nil {
		reportfile.AppendJobSummary(r.a, jobsummary.FromCollector(r.col, "whsim validate", "input", sum.Failed == 0))
	}
	if sum.Failed > 0 {
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// nothingChecked ends a run whose every payload was one no rule could look
// at, and none failed: no pass (exit 1, as no payloads is). Text and JSON
// end with the summary saying so; -o junit, as --junit FILE, is one case
// in error saying why, since a report of skipped cases reads as nothing
// failed; the job summary, as for no payloads, says the run's error.
func (r *validateRun) nothingChecked(sum validate.Summary) error {
	err := fmt.Errorf("validate: nothing checked: no rule could look at the %s read",
		term.Plural(sum.NotChecked, "payload", fmt.Sprintf("%d payloads", sum.NotChecked)))
	if r.opts.Output == term.JUnit {
		_ = r.out.Abort()
		if werr := term.WriteJUnitError(r.a.Streams.Out, "whsim validate", "whsim.validate", err.Error()); werr != nil {
			return werr
		}
	} else if werr := r.out.Finish(validateout.ValidateSummary{Summary: sum, Error: validateout.NothingChecked}); werr != nil {
		return werr
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: err}
}

// endedEarly ends a run Ctrl-C or SIGTERM stopped (ctx done; err, the
// reader's cancellation) or an input that could not be read stopped (err):
// stdout's JSON still ends with its summary, of the payloads checked by
// then and saying interrupted, or the error, as send's and check's do (a
// JSON reader got no summary at all, or nothing); text too, but for an
// input error before any payload (no line to be read as a verdict); -o
// junit is one case in error, as --junit FILE is (a report of the
// payloads checked would read as all passed); the job summary says the
// run did not finish. Exit 2 (a usage error: the input) or 130.
func (r *validateRun) endedEarly(ctx context.Context, sum validate.Summary, err error) error {
	interrupted := ctx.Err() != nil
	why, end := reportfile.InterruptedWhy, validateout.ValidateSummary{Summary: sum, Interrupted: interrupted}
	if !interrupted {
		why, end.Error = "validate: "+err.Error(), err.Error()
	}
	var werr error
	switch {
	case r.opts.Output == term.JUnit:
		_ = r.out.Abort()
		werr = term.WriteJUnitError(r.a.Streams.Out, "whsim validate", "whsim.validate", why)
	case r.opts.Output == term.Text && !interrupted && sum.Payloads == 0:
		werr = r.out.Abort()
	default:
		werr = r.out.Finish(end)
	}
	if werr != nil {
		if interrupted {
			return werr
		}
		// Output it could not write ends the run (exit 2); the input's
		// error is said too, not lost behind it.
		fmt.Fprintf(r.a.Streams.Err, "%s validate: %s\n", r.a.ErrColor.Key.Sprint("whsim:"), termsafe.Text(err.Error()))
		return werr
	}
	if r.col != nil {
		js := jobsummary.FromCollector(r.col, "whsim validate", "input", false)
		js.Interrupted = interrupted
		if !interrupted {
			js.Unfinished = why
		}
		reportfile.AppendJobSummary(r.a, js)
	}
	return cmdutil.UsageErr(fmt.Errorf("validate: %w", err))
}
