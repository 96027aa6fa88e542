// Package anonymizeout writes what whsim anonymize replaced, dropped and
// signed again. It sits beside the command, so that term, the format
// layer, imports no anonymize.
package anonymizeout

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/anonymize"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// WriteAnonymizeReport writes what an anonymize run replaced, dropped and signed again, for
// people (anonymize's stderr); resigned says the calls were to be signed.
func WriteAnonymizeReport(w io.Writer, st *anonymize.Stats, resigned bool) {
	what := fmt.Sprintf("%d %s", st.Payloads, term.Plural(st.Payloads, "payload", "payloads"))
	if records := fmt.Sprintf("%d %s", st.Records, term.Plural(st.Records, "capture record", "capture records")); st.Records > 0 && st.Payloads > 0 {
		what += " and " + records // payload files and capture files in one run
	} else if st.Records > 0 {
		what = records
	}
	var parts []string
	for _, c := range anonymize.Classes() {
		if n := st.Replaced[c]; n > 0 {
			many := string(c) + "s"
			if strings.HasSuffix(many, "ss") || c == anonymize.Echo {
				many = string(c) + "es" // remote addresses, email addresses, echoes
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, term.Plural(n, string(c), many)))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing"}
	}
	fmt.Fprintf(w, "anonymized %s: replaced %s\n", what, strings.Join(parts, ", "))
	if st.AsText > 0 {
		fmt.Fprintf(w, "anonymized as text %d %s that %s not JSON (kept, for the bug report)\n", st.AsText,
			term.Plural(st.AsText, "body", "bodies"), term.Plural(st.AsText, "is", "are"))
	}
	for _, name := range slices.Sorted(maps.Keys(st.Dropped)) {
		n := st.Dropped[name]
		fmt.Fprintf(w, "dropped %s from %d %s", name, n, term.Plural(n, "record", "records"))
		if strings.Contains(strings.ToLower(name), "signature") && !resigned {
			fmt.Fprint(w, " (it signed the old body; --resign whsec_... signs the calls again)")
		}
		fmt.Fprintln(w)
	}
	for _, name := range slices.Sorted(maps.Keys(st.Masked)) {
		n := st.Masked[name]
		fmt.Fprintf(w, "masked %s in %d HAR %s\n", name, n, term.Plural(n, "entry", "entries"))
	}
	if st.Resigned > 0 {
		fmt.Fprintf(w, "signed %d %s again (Standard Webhooks)\n", st.Resigned, term.Plural(st.Resigned, "record", "records"))
	} else if resigned && st.Records == 0 {
		// Said, not left to silence: a user who asked for signatures
		// would otherwise take payload files for signed ones.
		fmt.Fprintln(w, "signed nothing: --resign signs capture records (whsim listen --capture), and the input held none; a payload carries no signature")
	}
}

// Interrupted is where a Ctrl-C or SIGTERM stopped an anonymize run.
type Interrupted struct {
	// In is the input it stopped in; Out is where that input's output was
	// going, "" for stdout.
	In, Out string
	// Written are the files of the inputs before it, written whole.
	Written []string
	// Left is how many inputs after it were not read.
	Left int
	// Reading is a stop in the first reading of several inputs, before
	// anything was written.
	Reading bool
}

// String says, for anonymize's stderr, what was written and what was not:
// a file of the input it stopped in is not written (nor one an earlier
// run left replaced), stdout holds that input's output cut short.
func (it Interrupted) String() string {
	var b strings.Builder
	if it.Reading {
		fmt.Fprintf(&b, "interrupted (Ctrl-C or SIGTERM) while reading %s, before anything was written", termsafe.Text(it.In))
		return b.String()
	}
	fmt.Fprintf(&b, "interrupted (Ctrl-C or SIGTERM) in %s: ", termsafe.Text(it.In))
	if it.Out == "" {
		b.WriteString("stdout holds its output cut short")
	} else {
		fmt.Fprintf(&b, "%s not written", termsafe.Text(it.Out))
	}
	if it.Left > 0 {
		fmt.Fprintf(&b, ", %d more %s not read", it.Left, term.Plural(it.Left, "input", "inputs"))
	}
	if len(it.Written) > 0 {
		fmt.Fprintf(&b, "; wrote %s", termsafe.Text(strings.Join(it.Written, ", ")))
	}
	return b.String()
}

// Torn says a torn capture record that was skipped, at file:line as
// anonymize's errors and leaks and validate's findings are placed (stdin
// as <stdin>).
func Torn(name string, e *capture.TornError) string {
	return fmt.Sprintf("%s:%d: %s (%s); skipped", termsafe.Text(ctxio.InputName(name)), e.Line,
		input.TornLine(e.Restarted), termsafe.Text(e.Err.Error()))
}
