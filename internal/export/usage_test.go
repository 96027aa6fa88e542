package export

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The commands printed name the files written, the TestRun's names and the
// secret's variable, never the secret.
func TestK6Usage(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ko := k6Options{DataFile: "data.json", Calls: 8, Rate: 200, Duration: time.Minute, Sign: true}
	tr := testRunOptions{Name: "hooks", Script: "script.js", DataFile: "data.json", Parallelism: 3, Sign: true}
	if err := K6Usage(&b, "out", "testrun.yaml", ko, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"wrote out: 8 calls, k6 makes them 200/s for 1m0s (about 12000; past the 8, the same documents again under fresh requestIds). Run them:\n",
		"  k6 run -e WEBHOOK_SECRET=\"$WEBHOOK_SECRET\" out/script.js\n",
		"On Kubernetes (k6-operator, 3 pods):\n  kubectl create configmap hooks --from-file=out/script.js --from-file=out/data.json\n",
		"  kubectl create secret generic hooks-secret --from-literal=secret=\"$WEBHOOK_SECRET\"\n  kubectl apply -f out/testrun.yaml\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}

	// Within the data at a rate, every call is a document of its own.
	b.Reset()
	within := k6Options{DataFile: "data.json", Calls: 500, Rate: 5, Duration: time.Minute}
	if err := K6Usage(&b, "out", "testrun.yaml", within, tr); err != nil {
		t.Fatal(err)
	}
	if want := "wrote out: 500 calls, k6 makes them 5/s for 1m0s (about 300). Run them:\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("want %q, got\n%s", want, b.String())
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
	if err := VegetaUsage(&b, 4, "-t.json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-targets ./-t.json -rate 4/s", "split -n r/2 -d ./-t.json part-\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}

// The vegeta commands printed send each target at most once, on one machine
// and on two: vegeta cycles through its targets, and -rate R/s -duration Ds
// makes R×D calls, so a command over more than n would repeat requestIds.
func TestVegetaUsageSendsEachTargetOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n            int
		one, twoEach string // -rate and -duration of one machine, and of each of two
	}{
		{1, "-rate 1/s -duration 1s", ""},
		{3, "-rate 3/s -duration 1s", "-rate 1/s -duration 1s"},
		{99, "-rate 99/s -duration 1s", "-rate 49/s -duration 1s"},
		{100, "-rate 100/s -duration 1s", "-rate 50/s -duration 1s"},
		{250, "-rate 100/s -duration 2s", "-rate 50/s -duration 2s"},
		{2501, "-rate 100/s -duration 25s", "-rate 50/s -duration 25s"},
	} {
		var b bytes.Buffer
		if err := VegetaUsage(&b, tt.n, ""); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if want := "-targets targets.json " + tt.one + " |"; !strings.Contains(out, want) {
			t.Errorf("n=%d: missing %q in\n%s", tt.n, want, out)
		}
		if tt.twoEach == "" {
			if strings.Contains(out, "machine") {
				t.Errorf("n=%d: one target split over two machines in\n%s", tt.n, out)
			}
			continue
		}
		for _, want := range []string{"split -n r/2 -d targets.json part-\n", "-targets part-00 " + tt.twoEach + " >", "-targets part-01 " + tt.twoEach + " >"} {
			if !strings.Contains(out, want) {
				t.Errorf("n=%d: missing %q in\n%s", tt.n, want, out)
			}
		}
	}
}
