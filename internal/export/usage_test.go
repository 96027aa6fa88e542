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
	for _, want := range []string{"-targets ./-t.json -rate 4/s", "split -n r/2 -d ./-t.json part-\n"} {
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
// machine and on two, at 100/s at the most: vegeta cycles through its
// targets, so a command over more than n would repeat requestIds and one
// over fewer leave targets unsent (a rate of 100/s for n/100 whole
// seconds sent 100 of 120). vegetaHits is vegeta's pacer: -rate K/Ds
// -duration Ds sent K+1 when D mod K nanoseconds outlast the timer's
// lateness (50285 targets: 50 µs), the first target again.
func TestVegetaUsageSendsEachTargetOnce(t *testing.T) {
	t.Parallel()
	cmd := regexp.MustCompile(`-targets (\S+) -rate (\d+)/(\d*)s -duration (\S+) `)
	for _, tt := range []struct {
		n   int
		one string // -rate and -duration of one machine
	}{
		{1, "-rate 1/s -duration 1s"},
		{3, "-rate 3/s -duration 1s"},
		{99, "-rate 99/s -duration 1s"},
		{100, "-rate 100/s -duration 1s"},
		{120, "-rate 100/s -duration 1.2s"},
		{250, "-rate 100/s -duration 2.5s"},
		{2501, "-rate 100/s -duration 25.01s"},
		{50285, "-rate 100/s -duration 8m22.85s"},
		{999_999, "-rate 100/s -duration 2h46m39.99s"},
	} {
		var b bytes.Buffer
		if err := VegetaUsage(&b, tt.n, "", "", Reach{Timeout: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if want := "-targets targets.json " + tt.one + " -redirects 0 -timeout 10s |"; !strings.Contains(out, want) {
			t.Errorf("n=%d: missing %q in\n%s", tt.n, want, out)
		}
		sent := map[string]int{}
		for _, m := range cmd.FindAllStringSubmatch(out, -1) {
			k, _ := strconv.Atoi(m[2])
			per, _ := strconv.Atoi(m[3])
			if m[3] == "" {
				per = 1
			}
			d, err := time.ParseDuration(m[4])
			if err != nil || k > 100*per {
				t.Errorf("n=%d: %q: want a duration, at most 100/s", tt.n, m[0])
			}
			// A timer late by a microsecond, and by half the interval: the
			// same count.
			interval := time.Duration(per) * time.Second / time.Duration(k)
			hits := vegetaHits(k, time.Duration(per)*time.Second, d, time.Microsecond)
			if late := vegetaHits(k, time.Duration(per)*time.Second, d, interval/2); late != hits {
				t.Errorf("n=%d: %q sends %d, or %d with a later timer", tt.n, m[0], hits, late)
			}
			sent[m[1]] = hits
		}
		if sent["targets.json"] != tt.n {
			t.Errorf("n=%d: one machine sends %d", tt.n, sent["targets.json"])
		}
		// vegeta follows 10 redirects by default: a followed 302 is a GET
		// without the body that reads as a 200, where send fails the 3xx.
		if attacks, not := strings.Count(out, "vegeta attack"), strings.Count(out, " -redirects 0 "); attacks == 0 || not != attacks {
			t.Errorf("n=%d: %d vegeta attack commands, %d of them with -redirects 0, in\n%s", tt.n, attacks, not, out)
		}
		if tt.n < 2 {
			if strings.Contains(out, "machine") {
				t.Errorf("n=%d: one target split over two machines in\n%s", tt.n, out)
			}
			continue
		}
		// split -n r/2 deals the lines in turn: part-00 takes the odd one.
		if sent["part-00"] != (tt.n+1)/2 || sent["part-01"] != tt.n/2 || !strings.Contains(out, "split -n r/2 -d targets.json part-\n") {
			t.Errorf("n=%d: two machines send %d and %d in\n%s", tt.n, sent["part-00"], sent["part-01"], out)
		}
	}
}

// vegetaHits is how many hits vegeta v12's attack makes at -rate K/per
// for -duration d, each of its sleeps woken late by late: its constant
// pacer begins hit i at i×(per/K), per/K cut to whole nanoseconds, and
// it begins no hit once more than d has passed, which it looks at just
// after beginning the one before (lib/attack.go, lib/pacer.go).
func vegetaHits(k int, per, d, late time.Duration) int {
	interval := per / time.Duration(k)
	hits := 1
	for at := interval + late; at <= d; at += interval {
		hits++
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
		{1, "", "1 vegeta target, with its own requestId. Run it once (vegeta"},
		{1, IDWords([]Call{{RequestID: "a"}}), "1 vegeta target, with its own requestId. Run it once (vegeta"},
		{1, IDWords([]Call{{}}), "1 vegeta target, without a requestId string. Run it once (vegeta"},
		{2, IDWords([]Call{{RequestID: "a"}, {RequestID: "b"}}), "2 vegeta targets, each its own requestId. Run them, each once (vegeta"},
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
