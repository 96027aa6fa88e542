package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/ctxio"
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
			return runValidate(cmd.Context(), a.streams, a.outColor(), opts)
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

// outColor is the palette for findings on stdout: colour only when stdout
// is a terminal and neither --no-color nor NO_COLOR says otherwise.
func (a *app) outColor() Palette {
	return newPalette(a.streams.OutTTY && !a.noColor && os.Getenv("NO_COLOR") == "")
}

// payloadResult is one checked payload.
type payloadResult struct {
	file     string
	line     int // the payload's line in an NDJSON file; 0 for a whole file
	element  int // the payload's index in a JSON array; -1 otherwise
	findings []validate.Finding
	failed   bool
}

type reporter interface {
	payload(r *payloadResult) error
	finish(s validate.Summary) error
}

func runValidate(ctx context.Context, st Streams, pal Palette, opts *validateOptions) error {
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

	out := bufio.NewWriterSize(st.Out, 64<<10)
	var rep reporter
	switch opts.Output {
	case "json":
		rep = newJSONReporter(out)
	case "junit":
		rep = &junitReporter{w: out}
	default:
		rep = &textReporter{w: out, pal: pal}
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
			return rep.payload(&payloadResult{file: display, line: res.Line, element: res.Element,
				findings: res.Findings, failed: res.Failed})
		})
		if err != nil {
			_ = out.Flush()
			return usageErr(fmt.Errorf("validate: %s: %w", display, err))
		}
	}
	if err := rep.finish(sum); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
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

type textReporter struct {
	w   *bufio.Writer
	pal Palette
}

func (t *textReporter) payload(r *payloadResult) error {
	for _, f := range r.findings {
		loc := r.file
		if r.element >= 0 {
			loc += "[" + strconv.Itoa(r.element) + "]"
		}
		switch {
		case r.line > 0:
			loc += ":" + strconv.Itoa(r.line)
		case f.Line > 0:
			loc += ":" + strconv.Itoa(f.Line)
		}
		sev := t.pal.Warn.Sprint(f.Severity)
		if f.Severity == validate.Error {
			sev = t.pal.Fail.Sprint(f.Severity)
		}
		path := f.Path
		if path == "" {
			path = "(body)"
		}
		fmt.Fprintf(t.w, "%s: %s %s %s: %s\n", loc, sev, t.pal.Dim.Sprint(f.Rule), t.pal.Key.Sprint(path), f.Message)
	}
	return nil
}

func (t *textReporter) finish(s validate.Summary) error {
	verdict := t.pal.OK.Sprint("ok")
	if s.Failed > 0 {
		verdict = t.pal.Fail.Sprint("FAIL")
	}
	_, err := fmt.Fprintf(t.w, "%s: %d %s checked, %d failed; %d %s, %d %s\n", verdict,
		s.Payloads, plural(s.Payloads, "payload", "payloads"), s.Failed,
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"))
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// findingJSON is the stable --output json form of a finding: one object
// per line, then a summary object.
type findingJSON struct {
	Type     string `json:"type"` // "finding"
	File     string `json:"file"`
	Record   int    `json:"record,omitempty"`  // NDJSON line of the payload
	Element  *int   `json:"element,omitempty"` // index of the payload in a JSON array
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
	Line     int    `json:"line,omitempty"` // position in the body
	Column   int    `json:"column,omitempty"`
}

type summaryJSON struct {
	Type string `json:"type"` // "summary"
	validate.Summary
}

type jsonReporter struct{ enc *json.Encoder }

func newJSONReporter(w io.Writer) *jsonReporter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonReporter{enc: enc}
}

func (j *jsonReporter) payload(r *payloadResult) error {
	var elem *int
	if r.element >= 0 {
		elem = &r.element
	}
	for _, f := range r.findings {
		if err := j.enc.Encode(findingJSON{"finding", r.file, r.line, elem, f.Rule, string(f.Severity), f.Path, f.Message, f.Line, f.Column}); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonReporter) finish(s validate.Summary) error {
	return j.enc.Encode(summaryJSON{"summary", s})
}

// junitReporter writes one test case per payload, grouped in one test
// suite per file. Cases are kept until the end, for the suite's counts.
type junitReporter struct {
	w      *bufio.Writer
	suites []*junitSuite
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (j *junitReporter) payload(r *payloadResult) error {
	if len(j.suites) == 0 || j.suites[len(j.suites)-1].Name != r.file {
		j.suites = append(j.suites, &junitSuite{Name: r.file})
	}
	s := j.suites[len(j.suites)-1]
	name := r.file
	if r.element >= 0 {
		name += "[" + strconv.Itoa(r.element) + "]"
	}
	if r.line > 0 {
		name += ":" + strconv.Itoa(r.line)
	}
	c := junitCase{Name: name, Classname: "whsim.validate"}
	var sb strings.Builder
	for _, f := range r.findings {
		fmt.Fprintf(&sb, "%s %s %s: %s\n", f.Severity, f.Rule, f.Path, f.Message)
	}
	s.Tests++
	if r.failed {
		s.Failures++
		first := r.findings[0]
		for _, f := range r.findings {
			if f.Severity == validate.Error {
				first = f
				break
			}
		}
		c.Failure = &junitFailure{Message: first.Rule + " " + first.Path + ": " + first.Message, Type: first.Rule, Text: sb.String()}
	} else if sb.Len() > 0 {
		c.SystemOut = sb.String()
	}
	s.Cases = append(s.Cases, c)
	return nil
}

func (j *junitReporter) finish(sum validate.Summary) error {
	type suites struct {
		XMLName  xml.Name      `xml:"testsuites"`
		Name     string        `xml:"name,attr"`
		Tests    int           `xml:"tests,attr"`
		Failures int           `xml:"failures,attr"`
		Suites   []*junitSuite `xml:"testsuite"`
	}
	if _, err := io.WriteString(j.w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(j.w)
	enc.Indent("", "  ")
	if err := enc.Encode(suites{Name: "whsim validate", Tests: sum.Payloads, Failures: sum.Failed, Suites: j.suites}); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, "\n")
	return err
}
