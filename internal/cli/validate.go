package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/report"
	"github.com/whsim/whsim/internal/spec"
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
			return runValidate(a.streams, a.outColor(), opts)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Event, "event", "e", "", "the query event the payloads were sent with (default: follow the body number)")
	f.StringVar(&opts.Shape, "shape", validate.ShapeAuto, "body shape: "+strings.Join(validate.ShapeNames(), "|"))
	f.BoolVar(&opts.Strict, "strict", false, "warnings fail a payload too")
	f.StringArrayVar(&opts.Ignore, "ignore", nil, "drop findings of a rule id (repeatable)")
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

func ruleHelp() string {
	var sb strings.Builder
	for _, r := range validate.Rules() {
		fmt.Fprintf(&sb, "  %-22s %-7s %s\n", r.ID, r.Severity, r.Summary)
	}
	return strings.TrimRight(sb.String(), "\n")
}

// payloadResult is one checked payload.
type payloadResult struct {
	file     string
	line     int // the payload's line in an NDJSON file; 0 for a whole file
	findings []validate.Finding
	failed   bool
}

func runValidate(st Streams, pal Palette, opts *validateOptions) error {
	if opts.Event != "" {
		if _, ok := spec.Lookup(opts.Event); !ok {
			return usagef("--event: unknown event %q (valid: %s)", opts.Event, strings.Join(spec.EventNames(), ", "))
		}
	}
	v, err := validate.New(validate.Options{Shape: opts.Shape, Strict: opts.Strict, Ignore: opts.Ignore})
	if err != nil {
		var ue *validate.UnknownRuleError
		if errors.As(err, &ue) {
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
		fh, err := os.Open(name)
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
			return usageErr(fmt.Errorf("validate: %s: %w", name, unwrapPath(err)))
		}
		inputs[i] = fh
	}
	defer func() {
		for _, in := range inputs {
			_ = in.Close()
		}
	}()

	rep, err := report.New(opts.Output, st.Out, style(pal, false), false)
	if err != nil {
		return usagef("--output: %v", err)
	}
	var sum validateSummary
	for i, name := range files {
		display := name
		if name == "-" {
			display = "<stdin>"
		}
		err := eachPayload(inputs[i], display, func(line int, body []byte) error {
			var fs []validate.Finding
			if line > 0 && validate.IsCapture(body) {
				fs = v.CheckCapture(body)
			} else {
				fs = v.Check(body, opts.Event)
			}
			r := payloadResult{file: display, line: line, findings: fs, failed: v.Failed(fs)}
			sum.Payloads++
			if r.failed {
				sum.Failed++
			}
			for _, f := range fs {
				if f.Severity == validate.Error {
					sum.Errors++
				} else {
					sum.Warnings++
				}
			}
			return rep.Case(&r)
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

// eachPayload calls fn for each payload of r: one per line (line >= 1) when
// the input is NDJSON, else the whole input once (line 0). An input is
// NDJSON when its name says so or its first line holds a whole JSON value;
// it is streamed, so its size does not matter.
func eachPayload(r io.Reader, name string, fn func(line int, body []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var buf []byte
	readLine := func() ([]byte, bool, error) {
		buf = buf[:0]
		for {
			chunk, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				buf = append(buf, chunk...)
				continue
			}
			if len(buf) > 0 {
				buf = append(buf, chunk...)
				chunk = buf
			}
			if err == io.EOF {
				return chunk, len(chunk) > 0, nil
			}
			return chunk, true, err
		}
	}
	ext := strings.ToLower(filepath.Ext(name))
	forced := ext == ".ndjson" || ext == ".jsonl"
	first, ok, err := readLine()
	if err != nil {
		return err
	}
	firstLine := bytes.TrimRight(first, "\r\n")
	if !forced && !(len(bytes.TrimSpace(firstLine)) > 0 && json.Valid(firstLine)) {
		// One document: the first line and everything after it.
		doc := append([]byte(nil), first...)
		rest, err := io.ReadAll(br)
		if err != nil {
			return err
		}
		return fn(0, append(doc, rest...))
	}
	for n := 1; ok; n++ {
		line := bytes.TrimRight(first, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			if err := fn(n, line); err != nil {
				return err
			}
		}
		if first, ok, err = readLine(); err != nil {
			return err
		}
	}
	return nil
}
