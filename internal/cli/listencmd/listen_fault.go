package listencmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/listenout"
	"github.com/whsim/whsim/internal/fault"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// completeFault offers KIND= for each fault kind.
func completeFault(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, k := range fault.KindNames() {
		out = append(out, k+"=")
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// skipTruncated leaves truncated calls unjudged: the receiver answered a
// body cut short, not the call the sender made, and refusing it is right.
func skipTruncated(judge func(*receiver.Call) []listenout.CallFlag) func(*receiver.Call) []listenout.CallFlag {
	return func(c *receiver.Call) []listenout.CallFlag {
		if f := c.Record.Fault; f != nil && f.Kind == string(fault.Truncate) {
			return nil
		}
		return judge(c)
	}
}

// writeExactlyOnce says, after listen's summary, whether the receiver
// holds each document once in its state, naming those that broke with
// the faults that hit them and the command that asks again.
func writeExactlyOnce(w io.Writer, pal term.Style, p probe.Probe, docs *receiver.Documents, v receiver.Verdict, settle time.Duration) {
	verdict := pal.OK.Sprint("held")
	switch exactlyOnceVerdict(v) {
	case verdictBroken:
		verdict = pal.Fail.Sprint("BROKEN")
	case verdictNothingJudged:
		verdict = pal.Fail.Sprint("nothing judged") // no pass: exit 1
	}
	fmt.Fprintf(w, "%s %s: %d %s asked with %s, %d held once in their state, %d broke\n", pal.Key.Sprint("exactly-once:"), verdict,
		v.Asked, term.Plural(v.Asked, "document", "documents"), termsafe.Text(probe.Name(p)), v.Held, len(v.Broke))
	var cmds []string
	for _, d := range v.Broke {
		cmds = append(cmds, p.Command(d.Q))
	}
	if names, n := shellcmd.VarsNamed(cmds); n > 0 {
		// Unset, a pasted command asks without the credential: a 401 or
		// a 404 reads as the receiver holding nothing.
		fmt.Fprintf(w, "  set %s first: the commands below read the probe's credentials from %s\n", names, term.Plural(n, "it", "them"))
	}
	for i, d := range v.Broke {
		faults := "none"
		if len(d.Faults) > 0 {
			faults = strings.Join(d.Faults, ", ")
		}
		fmt.Fprintf(w, "  %s %s: %s; %d %s from the sender; faults: %s; the probe answered %s\n", pal.Fail.Sprint("BROKE"),
			termsafe.Text(d.Name()), d.Defect(), d.Calls, term.Plural(d.Calls, "call", "calls"), termsafe.Text(faults), termsafe.Text(d.Answer.Raw))
		// Lines: a --probe-cmd of several lines runs as printed only with
		// its line breaks, which are in its quotes.
		fmt.Fprintf(w, "    ask again: %s\n", termsafe.Lines(cmds[i]))
	}
	writeNoneFound(w, docs, settle)
	if v.Unjudged > 0 {
		fmt.Fprintf(w, "  not judged: %d %s the receiver acknowledged no whole call of\n", v.Unjudged, term.Plural(v.Unjudged, "document", "documents"))
	}
	if n := len(v.Unasked); n > 0 {
		u := v.Unasked[0].Unsafe
		remedy := ""
		if r := u.Remedy(); r != "" {
			remedy = " (" + r + ")"
		}
		fmt.Fprintf(w, "  not asked: %d %s whose number or requestId from the sender %s; first: %s %q %s%s\n",
			n, term.Plural(n, "document", "documents"), u.Risk(), u.Name, u.Value, u.What, remedy)
	}
	if docs.Untracked > 0 {
		fmt.Fprintf(w, "  not followed: %d %s with no known event or document number, or past the documents listen follows (%s)\n",
			docs.Untracked, term.Plural(docs.Untracked, "call", "calls"), receiver.FollowedDocuments())
	}
}

// writeNoneFound says, as check's effects line does, when the probe found
// none of the documents asked about, or none of one kind while it found
// the other's: likelier a probe asking the wrong question (another
// number, table or database) or a store slower than --settle than a
// receiver that lost them all, which the BROKE lines alone would read as.
func writeNoneFound(w io.Writer, docs *receiver.Documents, settle time.Duration) {
	asked, found, notFound := 0, 0, 0
	askedOf, foundOf := map[spec.Kind]int{}, map[spec.Kind]int{}
	for _, d := range docs.Docs() {
		if d.Want == "" || d.Unsafe != nil {
			continue // not asked
		}
		asked++
		askedOf[d.Q.Kind]++
		if d.Answer.Count > 0 {
			found++
			foundOf[d.Q.Kind]++
		}
		if d.Answer.NotFound {
			notFound++
		}
	}
	switch {
	case asked > 0 && notFound == asked:
		// An HTTP probe's 404 for every one: a URL template that matches
		// no route of the receiver's gets it too.
		fmt.Fprintf(w, "  %s\n", probe.NotFoundEvery(settle))
		return
	case asked > 0 && found == 0:
		fmt.Fprintf(w, "  %s\n", probe.NoneFound(settle))
		return
	}
	for _, k := range []spec.Kind{spec.Invoice, spec.Receipt} {
		if askedOf[k] > 0 && foundOf[k] == 0 {
			fmt.Fprintf(w, "  %s\n", probe.NoneFoundOf(probe.KindWord(k), settle))
		}
	}
}

// The verdicts of exactly-once, as -o json writes them.
const (
	verdictHeld          = "held"
	verdictBroken        = "broken"
	verdictNothingJudged = "nothing-judged"
)

// exactlyOnceVerdict is v in a word: broken when a document broke, nothing
// judged when none was asked about (no pass), else held.
func exactlyOnceVerdict(v receiver.Verdict) string {
	switch {
	case len(v.Broke) > 0:
		return verdictBroken
	case v.Asked == 0:
		return verdictNothingJudged
	}
	return verdictHeld
}

// exactlyOnceJSON is the last line of listen --output json with --probe.
type exactlyOnceJSON struct {
	ExactlyOnce struct {
		Asked    int             `json:"asked"`
		Held     int             `json:"held"`
		Unjudged int             `json:"unjudged"`
		Unasked  int             `json:"unasked,omitempty"`
		Broke    []brokenDocJSON `json:"broke"`
		// Verdict says it in a word: a reader finding broke empty must not
		// read a stop that asked about nothing as held.
		Verdict string `json:"verdict"`
	} `json:"exactlyOnce"`
}

type brokenDocJSON struct {
	Kind        string   `json:"kind"`
	Code        string   `json:"code"`
	InvoiceCode string   `json:"invoiceCode,omitempty"`
	Want        string   `json:"want"`
	Count       int      `json:"count"`
	State       string   `json:"state,omitempty"`
	Calls       int      `json:"calls"`
	Faults      []string `json:"faults"`
	Reason      string   `json:"reason"`
}

func writeExactlyOnceJSON(w io.Writer, v receiver.Verdict) error {
	var o exactlyOnceJSON
	e := &o.ExactlyOnce
	e.Asked, e.Held, e.Unjudged, e.Unasked, e.Broke = v.Asked, v.Held, v.Unjudged, len(v.Unasked), []brokenDocJSON{}
	e.Verdict = exactlyOnceVerdict(v)
	for _, d := range v.Broke {
		faults := d.Faults
		if faults == nil {
			faults = []string{}
		}
		e.Broke = append(e.Broke, brokenDocJSON{Kind: probe.KindWord(d.Q.Kind), Code: d.Q.Code, InvoiceCode: d.Q.InvoiceCode,
			Want: d.Want, Count: d.Answer.Count, State: d.Answer.State, Calls: d.Calls, Faults: faults, Reason: d.Defect()})
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil // a value built above always encodes
	}
	_, err = w.Write(termsafe.JSON(append(b, '\n')))
	return err
}

// writeExactlyOnceErrorJSON is the exactlyOnce line of a stop whose probe
// failed: why there is no verdict.
func writeExactlyOnceErrorJSON(w io.Writer, why error) error {
	var o struct {
		ExactlyOnce struct {
			Error string `json:"error"`
		} `json:"exactlyOnce"`
	}
	o.ExactlyOnce.Error = why.Error()
	b, err := json.Marshal(o)
	if err != nil {
		return nil // a string always encodes
	}
	_, err = w.Write(termsafe.JSON(append(b, '\n')))
	return err
}
