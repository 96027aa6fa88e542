package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/anonymize"
	"github.com/whsim/whsim/internal/deliver"
)

type anonymizeOptions struct {
	Files  []string
	Key    string
	Out    string
	Resign string
	Check  bool
}

func newAnonymizeCmd(a *app) *cobra.Command {
	opts := &anonymizeOptions{}
	cmd := &cobra.Command{
		Use:   "anonymize --key <key> [<file>...|-] [--out <file|dir>] [--resign <whsec_...>] [--check]",
		Short: "Replace the names, tax ids and document numbers in captured calls, for sharing",
		Long: `Turn captured production calls into fixtures that are safe to commit or attach
to a bug report. Reads payloads (one JSON document, an array of them, or
NDJSON) or capture records (whsim listen --capture) and writes the same kind.

What identifies someone, from the spec model: people's names and employee
codes, company names and customer codes, tax ids, invoice numbers and titles,
document numbers, remarks and comments, the customer objects of receipts.
Each becomes a realistic stand-in: a tax id another valid unified social
credit code, a name another Chinese name, a code the same format. Amounts,
rates, dates, enumerations, currencies and the event are kept exactly, and
only the replaced values' bytes change (key order, white space and number
spellings survive).

The stand-ins are keyed: the same value with the same key always becomes the
same stand-in, in every field of its kind, record and run, so a receipt's
CREATE and ABANDON stay linked; another key gives other stand-ins, and
without the key the mapping cannot be recovered (HMAC-SHA256). Keep the key
secret and use a random one of at least 16 bytes.

In capture records Content-Length is corrected, and signature and credential
headers are dropped (their signature covered the old body); --resign signs
each call again with a Standard Webhooks secret, so that it replays against a
verifying receiver. --check scans the output for anything that still looks
like a tax id, a mobile number or an identity-card number and exits 1 if it
finds one. A report of what was replaced goes to stderr.`,
		Example: `  whsim anonymize --key "$KEY" calls.ndjson > fixtures/calls.ndjson
  whsim anonymize monday.ndjson tuesday.ndjson --out fixtures/     # the key from WHSIM_ANONYMIZE_KEY
  whsim anonymize --key "$KEY" --check --resign whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw calls.ndjson --out shared.ndjson
  whsim generate --event all | whsim anonymize --key "$KEY" -`,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runAnonymize(cmd.Context(), a, opts)
		}),
		ValidArgsFunction: completePayloadFiles,
	}
	f := cmd.Flags()
	f.StringVar(&opts.Key, "key", "", "the anonymization key, at least 16 bytes (also WHSIM_ANONYMIZE_KEY; never printed)")
	f.StringVarP(&opts.Out, "out", "o", "", "write to this file, or into this directory one file per input (default stdout)")
	f.StringVar(&opts.Resign, "resign", "", "sign capture records again with this Standard Webhooks secret (whsec_...)")
	f.BoolVar(&opts.Check, "check", false, "exit 1 if the output still holds something that looks like a tax id, mobile or identity-card number")
	return cmd
}

func runAnonymize(ctx context.Context, a *app, opts *anonymizeOptions) error {
	if opts.Key == "" {
		return usagef("anonymize needs --key (or WHSIM_ANONYMIZE_KEY): a random secret of at least 16 bytes, e.g. openssl rand -hex 16")
	}
	an, err := anonymize.New([]byte(opts.Key))
	if err != nil {
		return usagef("--key: %v", err)
	}
	aopts := anonymize.Options{Now: a.now, Check: opts.Check}
	if opts.Resign != "" {
		if aopts.Resign, err = deliver.NewSigner(opts.Resign); err != nil {
			return usagef("--resign: %v", err)
		}
	}
	files := opts.Files
	if len(files) == 0 {
		files = []string{"-"}
	}
	toDir, err := outputIsDir(opts.Out, len(files))
	if err != nil {
		return err
	}
	total := &anonymize.Stats{Replaced: anonymize.Report{}, Dropped: map[string]int{}}
	for _, name := range files {
		st, err := anonymizeFile(ctx, a, an, name, opts.Out, toDir, aopts)
		if err != nil {
			return err
		}
		total.Add(st)
		if st.Torn > 0 {
			fmt.Fprintf(a.streams.Err, "%s %s:%d: torn last record skipped (a crash while listen wrote it)\n",
				a.errColor.Warn.Sprint("warning:"), name, st.Torn)
		}
		for _, l := range st.Leaks {
			fmt.Fprintf(a.streams.Err, "%s %s:%d: still looks like a %s: %s\n",
				a.errColor.Fail.Sprint("leak:"), name, l.Line, l.Kind, termSafe(l.Text, false))
		}
	}
	total.WriteReport(a.streams.Err, opts.Resign != "")
	if len(total.Leaks) > 0 {
		return &exitError{code: ExitFailed, err: fmt.Errorf("--check: %d value(s) in the output still look like identifiers", len(total.Leaks))}
	}
	return nil
}

// outputIsDir says whether --out names a directory (one file per input).
// Several inputs into one file would mix documents, so that is refused.
func outputIsDir(out string, inputs int) (bool, error) {
	if out == "" {
		return false, nil
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() || strings.HasSuffix(out, string(os.PathSeparator)) {
		return true, os.MkdirAll(out, 0o755)
	}
	if inputs > 1 {
		return false, usagef("--out %s: %d inputs need a directory (end it with /), one file each", out, inputs)
	}
	return false, nil
}

func anonymizeFile(ctx context.Context, a *app, an *anonymize.Anonymizer, name, out string, toDir bool, opts anonymize.Options) (*anonymize.Stats, error) {
	var in io.Reader = a.streams.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, usageErr(err)
		}
		defer f.Close()
		in = f
	} else if toDir {
		return nil, usagef("--out %s: standard input has no file name to write in a directory; name a file", out)
	}
	if out == "" {
		st, err := an.Stream(ctx, in, a.streams.Out, opts)
		return st, inputErr(name, err)
	}
	dest := out
	if toDir {
		dest = filepath.Join(out, filepath.Base(name))
	}
	// A temporary file renamed at the end: a failed run leaves no
	// half-anonymized fixture behind.
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".whsim-anonymize-*")
	if err != nil {
		return nil, usageErr(err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	st, err := an.Stream(ctx, in, tmp, opts)
	if err != nil {
		return nil, inputErr(name, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	return st, os.Rename(tmp.Name(), dest)
}

// inputErr names the file and place of a payload or record that could not
// be read (exit 2: the input is unusable, nothing was checked).
func inputErr(name string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var ie *anonymize.InputError
	if errors.As(err, &ie) {
		if ie.Column > 0 {
			return usagef("%s:%d:%d: %s", name, ie.Line, ie.Column, termSafe(ie.Err.Error(), false))
		}
		return usagef("%s:%d: %s", name, ie.Line, termSafe(ie.Err.Error(), false))
	}
	return usagef("%s: %s", name, termSafe(err.Error(), false))
}
