package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// payloadFlags are the flags that say which payloads to build; generate and
// send share them.
type payloadFlags struct {
	Events []string
	Shape  string
	Seed   uint64
	Sets   []string
	Unsets []string
}

func (p *payloadFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVarP(&p.Events, "event", "e", []string{spec.AllEvents},
		"event name, repeatable or comma-separated; "+spec.AllEvents+" for every event")
	f.StringVar(&p.Shape, "shape", string(spec.Described),
		"body shape: "+strings.Join(spec.ShapeNames(), "|")+" (sample: the spec's sample bodies)")
	f.Uint64Var(&p.Seed, "seed", 0, "seed for reproducible payloads (0: random)")
	f.StringArrayVar(&p.Sets, "set", nil, "set a field: <path>=<value>, value as JSON else string (repeatable)")
	f.StringArrayVar(&p.Unsets, "unset", nil, "remove a field: <path> (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("event", completeEvents)
	_ = cmd.RegisterFlagCompletionFunc("shape", completeShapes)
}

// payloadPlan is what payloadFlags resolve to.
type payloadPlan struct {
	Events []spec.Event
	Shape  spec.Shape
	Source *payload.Source
	// Now is the time payloads are generated around.
	Now time.Time
}

// plan checks the flags (usage errors) and returns the payload source,
// generating around payload.Around.
func (p *payloadFlags) plan(now time.Time) (*payloadPlan, error) {
	events, err := spec.ParseEvents(p.Events)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--event: %w", err))
	}
	if len(events) == 0 {
		return nil, usagef("--event: none given (valid: %s, %s)", strings.Join(spec.EventNames(), ", "), spec.AllEvents)
	}
	shape, err := spec.ParseShape(p.Shape)
	if err != nil {
		return nil, usageErr(fmt.Errorf("--shape: %w", err))
	}
	ovs, err := p.overrides()
	if err != nil {
		return nil, err
	}
	now = payload.Around(p.Seed, now)
	return &payloadPlan{Events: events, Shape: shape, Source: payload.NewSource(p.Seed, now, shape, ovs), Now: now}, nil
}

// overrides parses --set and --unset, sets first.
func (p *payloadFlags) overrides() ([]payload.Override, error) {
	var ovs []payload.Override
	for _, s := range p.Sets {
		ov, err := payload.ParseSet(s)
		if err != nil {
			return nil, usageErr(err)
		}
		ovs = append(ovs, ov)
	}
	for _, s := range p.Unsets {
		ov, err := payload.ParseUnset(s)
		if err != nil {
			return nil, usageErr(err)
		}
		ovs = append(ovs, ov)
	}
	return ovs, nil
}

// next builds the next payload of e; an override that does not fit it is a
// usage error naming the path.
func (pl *payloadPlan) next(e spec.Event) (*payload.Obj, error) {
	doc, err := pl.Source.Next(e)
	var pe *payload.PathError
	if errors.As(err, &pe) {
		return nil, usageErr(fmt.Errorf("%s %s payload: %w", e.Name, pl.Shape, err))
	}
	return doc, err
}

// nextBody is next's payload encoded, as a delivery sends it.
func (pl *payloadPlan) nextBody(e spec.Event) ([]byte, error) {
	doc, err := pl.next(e)
	if err != nil {
		return nil, err
	}
	return payload.Marshal(doc), nil
}

type generateOptions struct {
	payloadFlags
	Count   int
	Output  string
	Out     string
	Fixture bool

	// changed are the flags given that --fixture has no use for.
	changed []string
}

func newGenerateCmd(a *app) *cobra.Command {
	opts := &generateOptions{}
	cmd := &cobra.Command{
		Use:   "generate [--event <name>]... [--shape described|sample] [--seed <n>] [--count <n>] [--set <path>=<value>]... [--unset <path>]...",
		Short: "Print realistic payloads for events",
		Long: `Print realistic webhook bodies (envelope and data) for the given events.

One payload prints as indented JSON; several (--count, or more than one event)
print as NDJSON, one per line. --out with a .json or .ndjson name writes to
that file instead (several payloads in a .json file are one JSON array);
--out with any other name is a directory, one file per payload. --count is
per event: --event all --count 10 makes 40.
--set and --unset take dotted paths into the envelope (data.items.0.quantity,
data.收款单.汇率; a backslash escapes a dot in a key) to build the edge cases a
receiver must survive. The same --seed gives the same bytes.`,
		Example: `  whsim generate --event CREATE_RECEIVABLE_DOC
  whsim generate --event AUDIT_PURCHASE_ORDER_INVOICE --shape sample --seed 42
  whsim generate --event all --count 100 > payloads.ndjson
  whsim generate --event CREATE_RECEIVABLE_DOC --seed 7 --out receipt.json
  whsim generate --event AUDIT_PURCHASE_ORDER_INVOICE --set data.status=REFUSAL --unset data.items.0.tax
  whsim generate --event CREATE_RECEIVABLE_DOC --set 'data.收款单.汇率=7.1'
  whsim generate --event ABANDON_RECEIVABLE_DOC --fixture`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			for _, name := range []string{"seed", "set", "unset", "count"} {
				if cmd.Flags().Changed(name) {
					opts.changed = append(opts.changed, "--"+name)
				}
			}
			return runGenerate(cmd.Context(), a, opts)
		}),
	}
	opts.register(cmd)
	f := cmd.Flags()
	f.IntVarP(&opts.Count, "count", "n", 1, "payloads of each event")
	f.StringVar(&opts.Out, "out", "", "write to this file when it is named .json or .ndjson, else into this directory, one file per payload (EVENT-requestId.json)")
	f.BoolVar(&opts.Fixture, "fixture", false, "print the canonical fixture of each event and shape instead (embedded; no --seed, --set, --unset or --count)")
	addOutputFlag(cmd, &opts.Output, "auto", "auto", "json", "ndjson")
	return cmd
}

func runGenerate(ctx context.Context, a *app, opts *generateOptions) error {
	if opts.Count < 1 {
		return usagef("--count %d: want at least 1", opts.Count)
	}
	pl, err := opts.plan(a.now())
	if err != nil {
		return err
	}
	if opts.Fixture {
		if len(opts.changed) > 0 {
			verb := "does"
			if len(opts.changed) > 1 {
				verb = "do"
			}
			return usagef("--fixture prints the embedded fixtures as they are: %s %s not apply", strings.Join(opts.changed, ", "), verb)
		}
		return writeFixtures(a, pl)
	}
	many := opts.Count > 1 || len(pl.Events) > 1
	out := opts.Output
	dir, file := opts.Out, outFile(opts.Out)
	if file != "" {
		dir = ""
		if out == "auto" && strings.EqualFold(filepath.Ext(file), ".json") {
			out = "json"
		}
	}
	if out == "auto" {
		out = "json"
		if many {
			out = "ndjson"
		}
	}
	dest := a.streams.Out
	if file != "" {
		f, err := os.Create(file)
		if err != nil {
			return usagef("--out: %v", err)
		}
		defer f.Close()
		dest = f
	}
	w := bufio.NewWriter(dest)
	defer w.Flush()
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErr(err)
		}
	}
	if out == "json" && many && dir == "" {
		w.WriteString("[\n")
	}
	n := 0
	for _, e := range pl.Events {
		for range opts.Count {
			if err := ctx.Err(); err != nil {
				return err
			}
			doc, err := pl.next(e)
			if err != nil {
				return err
			}
			n++
			if dir != "" {
				id, _ := doc.Get(spec.FieldRequestID)
				name := filepath.Join(dir, fmt.Sprintf("%s-%v.json", e.Name, id))
				if err := os.WriteFile(name, payload.MarshalIndent(doc), 0o644); err != nil {
					return err
				}
				fmt.Fprintln(w, name)
				continue
			}
			if out == "ndjson" {
				w.Write(payload.Marshal(doc))
				w.WriteByte('\n')
				continue
			}
			if !many {
				w.Write(payload.MarshalIndent(doc))
				continue
			}
			if n > 1 {
				w.WriteString(",\n")
			}
			w.Write(bytes.TrimSuffix(payload.MarshalIndent(doc), []byte("\n")))
		}
	}
	if out == "json" && many && dir == "" {
		w.WriteString("\n]\n")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if file == "" {
		return nil
	}
	if err := dest.(*os.File).Close(); err != nil {
		return err
	}
	noun := "payloads"
	if n == 1 {
		noun = "payload"
	}
	fmt.Fprintf(a.streams.Err, "wrote %d %s to %s\n", n, noun, termsafe.Text(file))
	return nil
}

// outFile is --out when it names a file to write (.json or .ndjson, not an
// existing directory), else "".
func outFile(out string) string {
	switch strings.ToLower(filepath.Ext(out)) {
	case ".json", ".ndjson":
		if fi, err := os.Stat(out); err == nil && fi.IsDir() {
			return ""
		}
		return out
	}
	return ""
}

func writeFixtures(a *app, pl *payloadPlan) error {
	for _, e := range pl.Events {
		b, err := fixtures.Get(e.Name, pl.Shape)
		if err != nil {
			return err
		}
		if _, err := a.streams.Out.Write(b); err != nil {
			return err
		}
	}
	return nil
}
