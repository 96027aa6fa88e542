package anonymize

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/term"
)

// Add adds the counts and leaks of o to st, for a run over several inputs.
func (st *Stats) Add(o *Stats) {
	st.Payloads += o.Payloads
	st.Records += o.Records
	st.Replaced.Add(o.Replaced)
	for k, n := range o.Dropped {
		st.Dropped[k] += n
	}
	st.Resigned += o.Resigned
	st.AsText += o.AsText
	st.Leaks = append(st.Leaks, o.Leaks...)
}

// WriteReport writes what a run replaced, dropped and signed again, for
// people (anonymize's stderr); resigned says the calls were to be signed.
func (st *Stats) WriteReport(w io.Writer, resigned bool) {
	what := fmt.Sprintf("%d %s", st.Payloads, term.Plural(st.Payloads, "payload", "payloads"))
	if st.Records > 0 {
		what = fmt.Sprintf("%d %s", st.Records, term.Plural(st.Records, "capture record", "capture records"))
	}
	var parts []string
	for _, c := range Classes() {
		if n := st.Replaced[c]; n > 0 {
			many := string(c) + "s"
			if c == Echo {
				many = "echoes"
			} else if c == Address {
				many = "remote addresses"
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
	if st.Resigned > 0 {
		fmt.Fprintf(w, "signed %d %s again (Standard Webhooks)\n", st.Resigned, term.Plural(st.Resigned, "record", "records"))
	}
}
