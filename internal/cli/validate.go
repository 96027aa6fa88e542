package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/report"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
	"github.com/whsim/whsim/internal/validate"
)

type validateOptions struct {
	Event  string
	Shape  string
	Strict bool
	Ignore []string
	Output string
	Files  []string
}

func newValidateCmd(a *app) *cobra.Command {
	opts := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [<file>...] [--event <name>] [--shape auto|described|sample] [--strict] [--ignore <rule>]... [--output text|json|junit]",
		Short: "Check payloads, NDJSON streams and capture logs against the interface",
		Long: `Check webhook bodies against the spec: strict JSON, the envelope, the event,
every field's type and format, the two invoice shapes, and the arithmetic of
the documents. Errors fail a payload (exit 1); warnings only tell, unless
--strict.

Inputs are files holding one payload, NDJSON files (one payload per line;
findings name the line: a file whose first line is a whole JSON value, or
named *.ndjson or *.jsonl) and capture logs written by whsim listen (the
query's businessType is then the event). No file, or -, reads stdin.

Rules (--ignore <id> silences one):
` + ruleHelp(),
		Example: `  whsim validate payload.json
  whsim generate --event all --count 100 | whsim validate --strict
  whsim validate --event CREATE_RECEIVABLE_DOC --ignore base-amount receipt.json
  whsim validate captures.ndjson --output junit > validate.xml`,
		ValidArgsFunction: completePayloadFiles,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runValidate(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Event, "event", "e", "", "the query event the payloads were sent with (default: follow the body number)")
	f.StringVar(&opts.Shape, "shape", validate.ShapeAuto, "body shape: "+strings.Join(validate.ShapeNames(), "|"))
	f.BoolVar(&opts.Strict, "strict", false, "warnings fail a payload too")
	f.StringSliceVar(&opts.Ignore, "ignore", nil, "drop findings of a rule id, repeatable or comma-separated")
	addOutputFlag(cmd, &opts.Output, "text", "text", "json", "junit")
	_ = cmd.RegisterFlagCompletionFunc("event", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, e := range spec.Events() {
			out = append(out, e.Name+"\t"+e.Meaning)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("shape", completeWords(validate.ShapeNames()...))
	_ = cmd.RegisterFlagCompletionFunc("ignore", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, r := range validate.Rules() {
			out = append(out, r.ID+"\t"+string(r.Severity)+": "+r.Summary)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// eventHint suggests the event meant, else lists the valid ones.
func eventHint(name string) string {
	if hint := suggest.Hint(name, spec.EventNames()); hint != "" {
		return hint
	}
	return " (valid: " + strings.Join(spec.EventNames(), ", ") + ")"
}

func ruleHelp() string {
	var sb strings.Builder
	for _, r := range validate.Rules() {
		fmt.Fprintf(&sb, "  %-22s %-7s %s\n", r.ID, r.Severity, r.Summary)
	}
	return strings.TrimRight(sb.String(), "\n")
}

func runValidate(ctx context.Context, a *app, opts *validateOptions) error {
	st := a.streams
	event := opts.Event
	if event != "" {
		events, err := spec.ParseEvents([]string{event})
		if err != nil || len(events) != 1 {
			return usagef("--event: unknown event %q%s", event, eventHint(event))
		}
		event = events[0].Name
	}
	v, err := validate.New(validate.Options{Shape: opts.Shape, Strict: opts.Strict, Ignore: opts.Ignore})
	if err != nil {
		var ue *validate.UnknownRuleError
		if errors.As(err, &ue) {
			if hint := suggest.Hint(ue.ID, validate.RuleIDs()); hint != "" {
				return usagef("--ignore: unknown rule %q%s", ue.ID, hint)
			}
			return usageErr(fmt.Errorf("--ignore: %w", err))
		}
		return usageErr(fmt.Errorf("--shape: %w", err))
	}
	files := opts.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	// Every file must be readable before any is checked: an unreadable one
	// is a usage error, not a verdict.
	inputs := make([]io.ReadCloser, len(files))
	for i, name := range files {
		if name == "-" {
			inputs[i] = io.NopCloser(st.In)
			continue
		}
		fh, err := ctxio.Open(ctx, name)
		if err == nil {
			var fi os.FileInfo
			if fi, err = fh.Stat(); err == nil && fi.IsDir() {
				err = errors.New("is a directory")
			}
		}
		if err != nil {
			for _, in := range inputs[:i] {
				_ = in.Close()
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return usageErr(fmt.Errorf("validate: %s: %w", name, unwrapPath(err)))
		}
		inputs[i] = fh
	}
	defer func() {
		for _, in := range inputs {
			_ = in.Close()
		}
	}()

	rep, err := report.New(opts.Output, st.Out, style(a.outColor(), false), false)
	if err != nil {
		return usagef("--output: %v", err)
	}
	var sum validate.Summary
	for i, name := range files {
		display := name
		if name == "-" {
			display = "<stdin>"
			if st.InTTY {
				fmt.Fprintln(st.Err, "whsim: reading payloads from stdin; Ctrl-D to end")
			}
		}
		in := validate.Input{Name: name, Event: event}
		err := v.CheckInput(ctx, inputs[i], in, func(res *validate.Result) error {
			sum.Add(res)
			return rep.Case(validate.Case{File: display, Result: res})
		})
		if err != nil {
			_ = rep.Abort()
			return usageErr(fmt.Errorf("validate: %s: %w", display, err))
		}
	}
	if err := rep.Finish(sum); err != nil {
		return err
	}
	if sum.Failed > 0 {
		return errChecksFailed
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
