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
*.jsonl) and capture logs written by whsim listen (the query's businessType
is then the event). No file, or -, reads stdin. An input with no payload at
all fails (exit 1).

Rules (--ignore <id> silences one):
` + validate.RuleHelp(),
		Example: `  whsim validate payload.json
  whsim generate --event all --count 100 | whsim validate --strict
  whsim validate --event CREATE_RECEIVABLE_DOC --ignore base-amount receipt.json
  whsim validate captures.ndjson --junit validate.xml`,
		ValidArgsFunction: cmdutil.CompletePayloadFiles,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return opts.junit.Finish(a, runValidate(cmd.Context(), a, opts), "whsim validate", "whsim.validate")
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Event, "event", "e", "", "the query event the payloads were sent with (default: follow the body number)")
	f.StringVar(&opts.Shape, "shape", validate.ShapeAuto, "body shape: "+strings.Join(validate.ShapeNames(), "|"))
	f.BoolVar(&opts.Strict, "strict", false, "warnings fail a payload too")
	f.StringSliceVar(&opts.Ignore, "ignore", nil, "drop findings of a rule id, repeatable or comma-separated")
	cmdutil.AddOutputFlag(cmd, &opts.Output, "text", "text", "json", "junit")
	opts.junit.Register(cmd, "one testcase per payload, a suite per file")
	_ = cmd.RegisterFlagCompletionFunc("event", cmdutil.CompleteEvent)
	_ = cmd.RegisterFlagCompletionFunc("shape", cmdutil.CompleteWords(validate.ShapeNames()...))
	_ = cmd.RegisterFlagCompletionFunc("ignore", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, r := range validate.Rules() {
			out = append(out, r.ID+"\t"+string(r.Severity)+": "+r.Summary)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runValidate(ctx context.Context, a *cmdutil.App, opts *validateOptions) error {
	st := a.Streams
	if err := reportfile.CheckJUnitPath(opts.junit.Path); err != nil {
		return err
	}
	event, err := validate.ParseEvent(opts.Event)
	if err != nil {
		return cmdutil.Usagef("--event: %w", err)
	}
	v, err := validate.New(validate.Options{Shape: opts.Shape, Strict: opts.Strict, Ignore: opts.Ignore})
	if err != nil {
		if _, ok := errors.AsType[*validate.UnknownRuleError](err); ok {
			return cmdutil.UsageErr(fmt.Errorf("--ignore: %w", err))
		}
		return cmdutil.UsageErr(fmt.Errorf("--shape: %w", err))
	}
	files, err := validate.OpenFiles(ctx, opts.Files, st.In)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return cmdutil.UsageErr(fmt.Errorf("validate: %w", err))
	}
	defer files.Close()

	out, err := term.New(opts.Output, st.Out, cmdutil.Style(a.OutColor, false), false)
	if err != nil {
		return cmdutil.Usagef("--output: %w", err)
	}
	rep := out
	// --junit FILE beside the output; a run that checks nothing leaves it
	// empty, and it is then written as one case in error saying why.
	if w := opts.junit.Writer(); w != nil {
		rep = term.Tee(rep, term.NewJUnit(w, ""))
	}
	// Under GitHub Actions a collector beside the output keeps the run for
	// the job summary.
	var col *term.Collector
	if reportfile.StepSummary() != "" {
		col = &term.Collector{}
		rep = term.Tee(rep, col)
	}
	var beforeStdin func()
	if st.InTTY {
		beforeStdin = func() { fmt.Fprintln(st.Err, "whsim: reading payloads from stdin; Ctrl-D to end") }
	}
	sum, err := v.CheckFiles(ctx, files, event, beforeStdin, func(c validate.Case) error { return rep.Case(validateout.Payload(c)) })
	if err != nil {
		_ = rep.Abort()
		return cmdutil.UsageErr(fmt.Errorf("validate: %w", err))
	}
	if sum.Array != "" {
		fmt.Fprintf(st.Err, "%s %s holds a JSON array, read as a list of payloads: a webhook body is one object, never an array\n", a.ErrColor.Warn.Sprint("note:"), termsafe.Text(sum.Array))
	}
	if sum.Payloads == 0 {
		// Nothing was checked: no "ok" line to be read as a pass.
		if opts.Output == "text" {
			_ = out.Abort()
		} else if err := out.Finish(validateout.ValidateSummary(sum)); err != nil {
			return err
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: errors.New("validate: no payloads")}
	}
	if err := rep.Finish(validateout.ValidateSummary(sum)); err != nil {
		return err
	}
	if col != nil {
		reportfile.AppendJobSummary(a, jobsummary.FromCollector(col, "whsim validate", "input", sum.Failed == 0))
	}
	if sum.Failed > 0 {
		return cmdutil.ErrChecksFailed
	}
	return nil
}
