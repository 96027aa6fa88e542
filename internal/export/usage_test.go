package export

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The commands printed name the files written, the TestRun's names and the
// secret's variable, never the secret; and say to set that variable
// first: run as printed without it, the script refused to start, and a
// WEBHOOK_SECRET left from another project signed with that.
func TestK6Usage(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ko := k6Options{DataFile: "data.json", Calls: 8, Rate: 200, Duration: time.Minute, Sign: true}
	tr := testRunOptions{Name: "hooks", Script: "script.js", DataFile: "data.json", Parallelism: 3, Sign: true}
	if err := K6Usage(&b, "out", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"wrote out: 8 calls, k6 makes them 200/s for 1m0s (about 12000; past the 8, the same documents again under fresh requestIds). Run them (set WEBHOOK_SECRET to --secret's value first: the commands read it from there):\n",
		"  k6 run -e WEBHOOK_SECRET=\"$WEBHOOK_SECRET\" out/script.js\n",
		"On Kubernetes (k6-operator, 3 pods):\n  kubectl create configmap hooks --from-file=out/script.js --from-file=out/data.json\n",
		"  kubectl create secret generic hooks-secret --from-literal=secret=\"$WEBHOOK_SECRET\"\n  kubectl apply -f out/testrun.yaml\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}

	// Within the data at a rate, every call is a document of its own;
	// short of the data, the calls past the rate's are never sent, which
	// "500 calls, k6 makes them 5/s for 1m0s (about 300)" left out.
	for _, tt := range []struct {
		calls int
		want  string
	}{
		{500, "wrote out: 500 calls, k6 makes 5/s for 1m0s (about 300: the first 300 of them, never the other 200). Run them:\n"},
		{300, "wrote out: 300 calls, k6 makes them 5/s for 1m0s (about 300). Run them:\n"},
		{1, "wrote out: 1 call, k6 makes it 5/s for 1m0s (about 300; past the 1, the same documents again under fresh requestIds). Run them:\n"},
	} {
		b.Reset()
		within := k6Options{DataFile: "data.json", Calls: tt.calls, Rate: 5, Duration: time.Minute}
		if err := K6Usage(&b, "out", "testrun.yaml", within, tr); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("want %q, got\n%s", tt.want, b.String())
		}
	}

	// A directory no shell would take as one word is quoted in every command.
	b.Reset()
	if err := K6Usage(&b, "my k6 $(touch x)", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  k6 run -e WEBHOOK_SECRET=\"$WEBHOOK_SECRET\" 'my k6 $(touch x)/script.js'\n",
		"--from-file='my k6 $(touch x)/script.js' --from-file='my k6 $(touch x)/data.json'\n",
		"  kubectl apply -f 'my k6 $(touch x)/testrun.yaml'\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(strings.ReplaceAll(b.String(), "'my k6 $(touch x)", ""), "$(touch") {
		t.Errorf("an unquoted $(...) in\n%s", b.String())
	}

	// A directory named like an option is no option to k6 or kubectl
	// (k6 run -k/script.js: unknown shorthand flag 'k').
	b.Reset()
	if err := K6Usage(&b, "-k", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  k6 run -e WEBHOOK_SECRET=\"$WEBHOOK_SECRET\" ./-k/script.js\n",
		"--execution-segment-sequence 0,1/2,1 ./-k/script.js\n",
		"--from-file=./-k/script.js --from-file=./-k/data.json\n",
		"  kubectl apply -f ./-k/testrun.yaml\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

// A targets file named like an option is no option to vegeta or split
// (split -n r/2 -d -t.json part-: -t is split's separator).
func TestVegetaUsageFileLikeAnOption(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := VegetaUsage(&b, 4, "", "-t.json", Reach{Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-targets ./-t.json -rate 100/s", "split -n r/2 -d ./-t.json part-\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

// Targets written to a pipe or a terminal are in no file: the commands
// name targets.json, the name the help's examples write to, and said
// nothing of it, so that a targets.json of an earlier export (another
// URL, other requestIds) was what they ran. They say to save them there
// first; targets saved in a file are named and nothing is said.
func TestVegetaUsageSaysTheTargetsAreInNoFile(t *testing.T) {
	t.Parallel()
	const save = "went to stdout, not to a file: save them as targets.json (> targets.json) first"
	for file, want := range map[string]bool{"": true, "targets.json": false, "t.json": false} {
		var b bytes.Buffer
		if err := VegetaUsage(&b, 4, "", file, Reach{Timeout: time.Second}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), save); got != want {
			t.Errorf("file %q: says %q: %v, want %v:\n%s", file, save, got, want, b.String())
		}
	}
}

// The vegeta commands printed send each target exactly once, on one
// machine and on two, at 100/s at the most, however late the machine
// runs: vegeta cycles through targets it read whole, so a command over
// more than n would repeat requestIds, and it stops at -duration, so one
// whose duration ends with the last target left the last ones unsent on
// a machine that fell behind (-rate 100/s -duration 1s sent 98 and 99 of
// 100 targets on a loaded machine, each sleep woken over 10 ms late).
// vegetaCalls is vegeta's attack: with -lazy it reads the targets in
// turn and stops at the first hit past the last.
func TestVegetaUsageSendsEachTargetOnce(t *testing.T) {
	t.Parallel()
	cmd := regexp.MustCompile(`vegeta attack -format json( -lazy)? -targets (\S+) -rate (\d+)/(\d*)s -duration (\S+) `)
	for _, n := range []int{1, 3, 99, 100, 120, 250, 2501, 50285, 999_999} {
		var b bytes.Buffer
		if err := VegetaUsage(&b, n, "", "", Reach{Timeout: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if want := "-targets targets.json -rate 100/s -duration 0 -redirects 0 -timeout 10s |"; !strings.Contains(out, want) {
			t.Errorf("n=%d: missing %q in\n%s", n, want, out)
		}
		want := map[string]int{"targets.json": n, "part-00": (n + 1) / 2, "part-01": n / 2}
		sent := map[string]int{}
		for _, m := range cmd.FindAllStringSubmatch(out, -1) {
			k, _ := strconv.Atoi(m[3])
			per, _ := strconv.Atoi(m[4])
			if m[4] == "" {
				per = 1
			}
			d, err := time.ParseDuration(m[5])
			if m[5] == "0" {
				d, err = 0, nil
			}
			if err != nil || k > 100*per {
				t.Errorf("n=%d: %q: want a duration, at most 100/s", n, m[0])
			}
			// A timer late by a microsecond, by half the interval, by three
			// intervals, by a second: each target once.
			interval := time.Duration(per) * time.Second / time.Duration(k)
			for _, late := range []time.Duration{time.Microsecond, interval / 2, 3 * interval, time.Second} {
				if got := vegetaCalls(want[m[2]], k, time.Duration(per)*time.Second, d, late, m[1] != ""); got != want[m[2]] {
					t.Errorf("n=%d: %q sends %d of %d targets with every timer %s late", n, m[0], got, want[m[2]], late)
				}
			}
			sent[m[2]]++
		}
		if sent["targets.json"] != 1 {
			t.Errorf("n=%d: %d commands for one machine in\n%s", n, sent["targets.json"], out)
		}
		// vegeta follows 10 redirects by default: a followed 302 is a GET
		// without the body that reads as a 200, where send fails the 3xx.
		if attacks, not := strings.Count(out, "vegeta attack"), strings.Count(out, " -redirects 0 "); attacks == 0 || not != attacks {
			t.Errorf("n=%d: %d vegeta attack commands, %d of them with -redirects 0, in\n%s", n, attacks, not, out)
		}
		if n < 2 {
			if strings.Contains(out, "machine") {
				t.Errorf("n=%d: one target split over two machines in\n%s", n, out)
			}
			continue
		}
		// split -n r/2 deals the lines in turn: part-00 takes the odd one.
		if sent["part-00"] != 1 || sent["part-01"] != 1 || !strings.Contains(out, "split -n r/2 -d targets.json part-\n") {
			t.Errorf("n=%d: not one command for each machine's half in\n%s", n, out)
		}
	}
}

// vegetaCalls is how many calls vegeta v12's attack makes of n targets
// at -rate K/per for -duration d (0: no end), each of its sleeps woken
// late by late: its constant pacer begins hit i at i×(per/K), per/K cut
// to whole nanoseconds, and it begins no hit once more than d has passed,
// which it looks at just after beginning the one before (lib/attack.go,
// lib/pacer.go). Targets read whole (no -lazy) it cycles through, hit
// after hit: -1 says the hits have no end. Read with -lazy, the first hit
// past the last target finds none and stops the attack: a result, no call
// (lib/targets.go's ErrNoTargets).
func vegetaCalls(n, k int, per, d, late time.Duration, lazy bool) int {
	if d == 0 && !lazy {
		return -1
	}
	interval := per / time.Duration(k)
	hits := 1
	for at := interval + late; d == 0 || at <= d; at += interval {
		if lazy && hits == n {
			return n
		}
		hits++
	}
	if lazy {
		return min(hits, n)
	}
	return hits
}

// Every vegeta command printed reaches the receiver as send would: send's
// --timeout (vegeta's own is 30 s), and for an https receiver --insecure
// and --cacert as vegeta's -insecure and -root-certs, the file one word.
func TestVegetaUsageReachesAsSendWould(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		reach Reach
		want  string
	}{
		{Reach{Timeout: 10 * time.Second}, " -redirects 0 -timeout 10s "},
		{Reach{Timeout: 1500 * time.Millisecond, Insecure: true}, " -redirects 0 -timeout 1.5s -insecure "},
		{Reach{Timeout: time.Minute, CAFile: "my ca.pem"}, " -redirects 0 -timeout 1m0s -root-certs 'my ca.pem' "},
		{Reach{Timeout: time.Second, CAFile: "-ca.pem"}, " -timeout 1s -root-certs ./-ca.pem "},
	} {
		var b bytes.Buffer
		if err := VegetaUsage(&b, 10, "", "", tt.reach); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if attacks, with := strings.Count(out, "vegeta attack"), strings.Count(out, tt.want); attacks != 3 || with != attacks {
			t.Errorf("%+v: %d vegeta attack commands, %d with %q, in\n%s", tt.reach, attacks, with, tt.want, out)
		}
	}
}

// With a CA file the k6 commands trust the copy beside the script through
// SSL_CERT_FILE (k6 has no option for a CA), and the ConfigMap carries it.
func TestK6UsageTrustsTheCA(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ko := k6Options{DataFile: "data.json", Calls: 8, Reach: Reach{Timeout: time.Second, CAFile: "/etc/dev ca.pem"}}
	tr := testRunOptions{Name: "hooks", Script: "script.js", DataFile: "data.json", Parallelism: 2, CAFile: "ca.pem"}
	if err := K6Usage(&b, "my k6", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if runs, trusted := strings.Count(out, "k6 run"), strings.Count(out, "SSL_CERT_FILE='my k6/ca.pem' k6 run "); runs != 3 || trusted != runs {
		t.Errorf("%d k6 run commands, %d trusting the copy, in\n%s", runs, trusted, out)
	}
	if want := "--from-file='my k6/data.json' --from-file='my k6/ca.pem'\n"; !strings.Contains(out, want) {
		t.Errorf("missing %q in\n%s", want, out)
	}
	if strings.Contains(out, "/etc/dev") {
		t.Errorf("the CA file's own path in\n%s", out)
	}
}

// The counts read right at one: "1 vegeta targets, each its own
// requestId" and "1 calls" read wrong.
func TestUsageCountsAtOne(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int
		ids  string
		want string
	}{
		{1, "", "1 vegeta target, with its own requestId. Run it once (-lazy"},
		{1, IDWords([]Call{{RequestID: "a"}}), "1 vegeta target, with its own requestId. Run it once (-lazy"},
		{1, IDWords([]Call{{}}), "1 vegeta target, without a requestId string. Run it once (-lazy"},
		{2, IDWords([]Call{{RequestID: "a"}, {RequestID: "b"}}), "2 vegeta targets, each its own requestId. Run them, each once (-lazy"},
	} {
		var b bytes.Buffer
		if err := VegetaUsage(&b, tt.n, tt.ids, "t.json", Reach{Timeout: time.Second}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("n=%d ids %q: want %q first in\n%s", tt.n, tt.ids, tt.want, b.String())
		}
	}

	var b bytes.Buffer
	ko := k6Options{DataFile: "data.json", Calls: 1, Rate: 1, Duration: time.Second}
	tr := testRunOptions{Name: "hooks", Script: "script.js", DataFile: "data.json", Parallelism: 1}
	if err := K6Usage(&b, "out", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wrote out: 1 call, k6 makes it 1/s for 1s (about 1). Run them:\n", "On Kubernetes (k6-operator, 1 pod):\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := K6Usage(&b, "out", "testrun.yaml", k6Options{DataFile: "data.json", Calls: 1}, tr); err != nil {
		t.Fatal(err)
	}
	if want := "wrote out: 1 call, k6 makes it once (1). Run them:\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("want %q, got\n%s", want, b.String())
	}
}
