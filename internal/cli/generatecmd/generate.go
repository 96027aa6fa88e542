// Package generatecmd is whsim generate: realistic payloads for the
// events, printed or written to files.
package generatecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/payloadflags"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

type generateOptions struct {
	payloadflags.Payloads
	Count   int
	Output  string
	Out     string
	Fixture bool

	// changed are the flags given that --fixture has no use for.
	changed []string
}

// New is whsim generate.
func New(a *cmdutil.App) *cobra.Command {
	opts := &generateOptions{}
	cmd := &cobra.Command{
		Use:   "generate [--event <name>]... [--shape described|sample] [--seed <n>] [--count <n>] [--set <path>=<value>]... [--unset <path>]...",
		Short: "Print realistic payloads for events",
		Long: `Print realistic webhook bodies (envelope and data) for the given events.

One payload prints as indented JSON; several (--count, or more than one event)
print as NDJSON, one per line. --out with a .json or .ndjson name writes to
that file instead (several payloads in a .json file are one JSON array, and
a .ndjson file is NDJSON, even of one payload);
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
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			for _, name := range []string{"seed", "set", "unset", "count"} {
				if cmd.Flags().Changed(name) {
					opts.changed = append(opts.changed, "--"+name)
				}
			}
			return runGenerate(cmd.Context(), a, opts)
		}),
	}
	opts.Register(cmd)
	f := cmd.Flags()
	f.IntVarP(&opts.Count, "count", "n", 1, "payloads of each event")
	f.StringVar(&opts.Out, "out", "", "write to this file when it is named .json or .ndjson (whole: a run stopped or failed leaves it as it was), else into this directory, one file per payload, each whole (EVENT-requestId.json, the characters a file name cannot hold on every system as _, an id over 100 bytes cut and given a digest; -2, -3 after a requestId the run already wrote; no-requestId without one)")
	_ = cmd.RegisterFlagCompletionFunc("out", cmdutil.CompleteFiles)
	f.BoolVar(&opts.Fixture, "fixture", false, "print the canonical fixture of each event and shape instead (embedded; no --seed, --set, --unset or --count)")
	cmdutil.AddOutputFlag(cmd, &opts.Output, "auto", "auto", "json", "ndjson")
	return cmd
}

func runGenerate(ctx context.Context, a *cmdutil.App, opts *generateOptions) error {
	if opts.Count < 1 {
		return cmdutil.Usagef("--count %d: want at least 1", opts.Count)
	}
	pl, err := opts.Plan(a)
	if err != nil {
		return err
	}
	next, count := pl.Payload, opts.Count
	if opts.Fixture {
		if n := len(opts.changed); n > 0 {
			return cmdutil.Usagef("--fixture prints the embedded fixtures as they are: %s %s not apply", strings.Join(opts.changed, ", "), term.Plural(n, "does", "do"))
		}
		// Written as a run is, so that several are NDJSON (or -o json's
		// array, or --out's files), not indented documents one after
		// another that no reader takes. One of each: a --count from
		// WHSIM_* or the config file (not refused: commands share it)
		// would repeat the same fixture.
		next, count = func(e spec.Event) (*payload.Obj, error) { return fixtureDoc(e, pl.Shape) }, 1
	}
	out := payload.Output{Format: opts.Output, Path: opts.Out}
	if err := out.Check(); err != nil {
		return cmdutil.UsageErr(err)
	}
	file := out.File()
	if file != "" {
		if err := cmdutil.FileDir("--out", file); err != nil {
			return cmdutil.UsageErr(err)
		}
	}
	if dir := out.Dir(); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return cmdutil.UsageErr(err)
		}
	}
	var n int
	if file == "" {
		n, err = out.WriteAll(ctx, a.Streams.Out, pl.Events, count, next)
	} else {
		// Whole or not at all: a run Ctrl-C or a full disk ended left
		// the payloads made by then in place of the file (a JSON array
		// never closed), for a later send --file to take as the set.
		err = atomicfile.Write(file, 0o644, func(w io.Writer) error {
			var werr error
			n, werr = out.WriteAll(ctx, w, pl.Events, count, next)
			return werr
		})
	}
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		// Output it could not write (--out on a full disk, a directory
		// it may not write in): generate could not run, exit 2.
		return cmdutil.UsageErr(err)
	}
	if err != nil || file == "" {
		return err
	}
	fmt.Fprintf(a.Streams.Err, "wrote %d %s to %s\n", n, term.Plural(n, "payload", "payloads"), termsafe.Text(file))
	return nil
}

// fixtureDoc is the embedded fixture of an event in a shape as a document:
// its members' values compact but byte for byte otherwise (1.0000 stays
// 1.0000), so that it writes as the seeded run that made it does.
func fixtureDoc(e spec.Event, s spec.Shape) (*payload.Obj, error) {
	b, err := fixtures.Get(e.Name, s)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("fixture %s: %w", fixtures.Name(e.Name, s), err)
	}
	doc := &payload.Obj{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("fixture %s: %w", fixtures.Name(e.Name, s), err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", fixtures.Name(e.Name, s), err)
		}
		var val bytes.Buffer
		if err := json.Compact(&val, raw); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", fixtures.Name(e.Name, s), err)
		}
		doc.Put(key.(string), json.RawMessage(val.Bytes()))
	}
	return doc, nil
}
