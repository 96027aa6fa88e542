package export

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/term"
)

// VegetaUsage tells how to run n targets saved as file (targets.json when
// "", the name the help's examples write to): on one machine, and split
// over two with one report of both. Every command sends each of its
// targets exactly once (vegetaPace). split -n r/2 deals the lines out in
// turn, so the halves differ by one line at most (l/2 halves the bytes).
// -redirects 0: vegeta follows up to 10 by default, and a followed 302 is
// a GET without the body that reads as a 200, where whsim send fails the
// 3xx; with 0 each is an error ("stopped after 0 redirects"), as send
// counts it. r's flags (-timeout, -insecure, -root-certs) follow, so
// vegeta reaches the receiver as send would.
func VegetaUsage(w io.Writer, n int, ids, file string, r Reach) error {
	// Targets in no file (a pipe, a terminal) must be saved before the
	// commands run: said, or they run a targets.json an earlier export
	// left, another URL's.
	saved := ""
	if file == "" {
		file = "targets.json"
		saved = " They went to stdout, not to a file: save them as targets.json (> targets.json) first."
		if n == 1 {
			saved = " It went to stdout, not to a file: save it as targets.json (> targets.json) first."
		}
	}
	targets := pathWord(file)
	if ids == "" {
		ids = "each its own requestId"
		if n == 1 {
			ids = "with its own requestId"
		}
	}
	reach := r.vegetaFlags()
	// The report counts the end as requests: said, so that its total and
	// success ratio are read for what they are.
	_, err := fmt.Fprintf(w, `%d vegeta %s, %s.%s %s (-lazy: vegeta reads the targets in turn and stops after the last; its report counts that stop as requests of status code 0, "no targets to attack", which are no calls):
  vegeta attack -format json -lazy -targets %s %s -redirects 0%s | tee results.bin | vegeta report
`, n, term.Plural(n, "target", "targets"), ids, saved, term.Plural(n, "Run it once", "Run them, each once"), targets, vegetaPace(100), reach)
	if err != nil || n < 2 {
		return err
	}
	// split -n r/2 deals the lines in turn: part-00 takes the odd one.
	// Each machine at half the rate: the two together at one's.
	_, err = fmt.Fprintf(w, `On two machines, each its own half of the targets at once, then one report of both:
  split -n r/2 -d %s part-
  machine 1: vegeta attack -format json -lazy -targets part-00 %s -redirects 0%s > m1.bin
  machine 2: vegeta attack -format json -lazy -targets part-01 %s -redirects 0%s > m2.bin
  vegeta report m1.bin m2.bin
`, targets, vegetaPace(50), reach, vegetaPace(50), reach)
	return err
}

// vegetaPace is vegeta's -rate and -duration that, with -lazy, send the
// targets each exactly once, perSec a second, however late the machine
// runs. Read whole, vegeta cycles through its targets until -duration,
// and begins no hit once -duration has passed, which it looks at just
// after beginning the hit before: a -duration that ended with the last
// target (-rate 100/s -duration 1s of 100) left the last ones unsent
// whenever a timer woke more than an interval late, as on a loaded
// machine (98 of 100), and any longer one sent the first targets again.
// -lazy reads them in turn, and the first hit past the last finds none
// and ends the attack (an error result, "no targets to attack", no call):
// -duration 0 leaves the end to the targets.
func vegetaPace(perSec int) string {
	return fmt.Sprintf("-rate %d/s -duration 0", perSec)
}

// K6Usage tells how to run the k6 files written into dir (the script and
// data of tr, the TestRun manifest testRun): on one machine, on two each
// its own execution segment, and on Kubernetes.
func K6Usage(w io.Writer, dir, testRun string, ko k6Options, tr testRunOptions) error {
	// Every path and name is quoted: --out may hold a space or a $(...).
	script := pathWord(filepath.Join(dir, tr.Script))
	env, first := "", ""
	if ko.Sign {
		env = " -e " + secretEnv + "=\"$" + secretEnv + "\""
		// As check names the variables its commands read: unset, the
		// script refuses to start; set by another project, it signs
		// with another secret.
		first = " (set " + secretEnv + " to --secret's value first: the commands read it from there)"
	}
	// k6 has no option for a CA: Go's TLS reads SSL_CERT_FILE (on Linux
	// and the BSDs) in place of the system's roots.
	trust, caFrom := "", ""
	if tr.CAFile != "" {
		ca := pathWord(filepath.Join(dir, tr.CAFile))
		trust, caFrom = "SSL_CERT_FILE="+ca+" ", " --from-file="+ca
	}
	makes := fmt.Sprintf("%s (%d)", term.Plural(ko.Calls, "it once", "them each once"), ko.Calls)
	if ko.Rate > 0 {
		makes = fmt.Sprintf("%s %s/s for %s (about %d)", term.Plural(ko.Calls, "it", "them"), strconv.FormatFloat(ko.Rate, 'f', -1, 64), ko.Duration, ko.Iterations())
		if ko.Iterations() < ko.Calls {
			// Call i is the data's call i: the rest are never sent, which
			// "400 calls, k6 makes them 10/s for 2s (about 20)" left out.
			makes = fmt.Sprintf("%s/s for %s (about %d: the first %d of them, never the other %d)",
				strconv.FormatFloat(ko.Rate, 'f', -1, 64), ko.Duration, ko.Iterations(), ko.Iterations(), ko.Calls-ko.Iterations())
		}
		if ko.Iterations() > ko.Calls {
			// The script cycles the data with fresh requestIds, not fresh
			// document numbers: a receiver that keys on the document (as it
			// should) stores only the data's documents, which is no loss.
			again := "the same documents again under fresh requestIds"
			if ko.UserIDs {
				// The script keeps a requestId the user set (or a body
				// without one) as it is.
				again = "the same calls again under the requestIds they hold (yours: --set or --unset requestId)"
			}
			makes = fmt.Sprintf("%s %s/s for %s (about %d; past the %d, %s)", term.Plural(ko.Calls, "it", "them"),
				strconv.FormatFloat(ko.Rate, 'f', -1, 64), ko.Duration, ko.Iterations(), ko.Calls, again)
		}
	}
	fmt.Fprintf(w, `wrote %s: %d %s, k6 makes %s. Run them%s:
  %sk6 run%s %s
On two machines, each its own execution segment (every call once between them):
  machine 1: %sk6 run%s --execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1 %s
  machine 2: %sk6 run%s --execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1 %s
`, shellcmd.Word(dir), ko.Calls, term.Plural(ko.Calls, "call", "calls"), makes, first, trust, env, script, trust, env, script, trust, env, script)
	if over := tr.overConfigMap(); over != "" {
		// A command that cannot run is not printed.
		_, err := fmt.Fprintf(w, "On Kubernetes (k6-operator): %s.\n", strings.ReplaceAll(over, "\n", " "))
		return err
	}
	fmt.Fprintf(w, `On Kubernetes (k6-operator, %d %s):
  kubectl create configmap %s --from-file=%s --from-file=%s%s
`, tr.Parallelism, term.Plural(tr.Parallelism, "pod", "pods"), shellcmd.Word(tr.Name), script, pathWord(filepath.Join(dir, tr.DataFile)), caFrom)
	if ko.Sign {
		fmt.Fprintf(w, "  kubectl create secret generic %s --from-literal=secret=\"$%s\"\n", shellcmd.Word(tr.Name+"-secret"), secretEnv)
	}
	if _, err := fmt.Fprintf(w, "  kubectl apply -f %s\n", pathWord(filepath.Join(dir, testRun))); err != nil {
		return err
	}
	if clear := tr.inClear(shellcmd.Word(filepath.Join(dir, tr.DataFile))); clear != "" {
		_, err := fmt.Fprintf(w, "warning: %s.\n", clear)
		return err
	}
	return nil
}

// pathWord is a path as one shell word that no command takes for an
// option: --out -k printed "k6 run -k/script.js", which k6 refused as an
// unknown flag, and a targets file -t.json "split ... -t.json", split's
// separator.
func pathWord(p string) string { return shellcmd.Path(p) }

// IDWords says how the calls' requestIds stand, as the usage printed
// tells it: "each its own requestId" is send's way, and not so of calls
// whose requestId the user set (--set requestId: one for all) or unset.
func IDWords(calls []Call) string {
	ids := make(map[string]bool, len(calls))
	for _, c := range calls {
		if c.RequestID != "" {
			ids[c.RequestID] = true
		}
	}
	if len(calls) == 1 {
		// "1 vegeta target, each its own requestId" reads wrong.
		if len(ids) == 1 {
			return "with its own requestId"
		}
		return "without a requestId string"
	}
	switch len(ids) {
	case len(calls):
		return "each its own requestId"
	case 0:
		return "none with a requestId string"
	case 1:
		return "all under one requestId"
	}
	return fmt.Sprintf("%d requestIds between them", len(ids))
}

// UserIDs says the calls' requestIds are the user's (--set or --unset
// requestId), which the k6 script keeps past its data.
func UserIDs(calls []Call) bool {
	return len(calls) > 0 && calls[0].UserID
}
