package sendcmd_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/cli/clitest"
)

// ids runs whsim and returns the requestIds of its NDJSON stdout.
func ids(t *testing.T, args ...string) []string {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, args...)
	if code != 0 {
		t.Fatalf("whsim %q: exit %d: %s", args, code, stderr)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var rec struct {
			RequestID string `json:"requestId"`
			Summary   any    `json:"summary"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Summary != nil {
			continue
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.RequestID == "" {
			t.Fatalf("whsim %q: line %q: %v", args, line, err)
		}
		out = append(out, rec.RequestID)
	}
	return out
}

// A seed makes runs reproducible, never ids shared by distinct deliveries:
// with --fixed-ids, generate, send and export agree and other events get
// other ids; without it, each run of the same seed has ids of its own.
func TestSeededRequestIDs(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const ev, other = "CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"
	gen := ids(t, "generate", "--seed", "7", "--event", ev, "--count", "300", "--output", "ndjson")
	send := ids(t, "send", "--seed", "7", "--fixed-ids", "--event", ev, "--count", "300", "--output", "json")
	if !slices.Equal(gen, send) {
		t.Errorf("generate and send --seed 7 --fixed-ids disagree:\n%q\n%q", gen[:3], send[:3])
	}
	again := ids(t, "send", "--seed", "7", "--fixed-ids", "--event", ev, "--count", "300", "--output", "json")
	if !slices.Equal(send, again) {
		t.Error("the same seed with --fixed-ids gives other ids")
	}
	both := ids(t, "send", "--seed", "7", "--fixed-ids", "--event", ev+","+other, "--count", "300", "--output", "json")
	alone := ids(t, "send", "--seed", "7", "--fixed-ids", "--event", other, "--count", "300", "--output", "json")
	if n := distinct(both); n != 600 {
		t.Errorf("one run of two events: %d distinct ids in 600 deliveries", n)
	}
	if n := distinct(gen, alone); n != 600 {
		t.Errorf("two runs of one event each: %d distinct ids in 600 deliveries", n)
	}
	if n := distinct(both, gen, alone); n != 600 {
		t.Errorf("a run of two events has %d ids not in the runs of each alone", n-600)
	}

	// Without --fixed-ids: two runs of one seed share no id, nor with generate.
	one := ids(t, "send", "--seed", "7", "--event", ev, "--count", "300", "--output", "json")
	two := ids(t, "send", "--seed", "7", "--event", ev, "--count", "300", "--output", "json")
	if n := distinct(gen, one, two); n != 900 {
		t.Errorf("two runs of --seed 7 and generate: %d distinct ids in 900", n)
	}

	// export likewise, its ids in the vegeta targets' bodies.
	exp := func(args ...string) []string {
		code, stdout, stderr := clitest.Run(t, append([]string{"export", "vegeta", "--url", "http://127.0.0.1:9/", "--seed", "7", "--event", ev, "--count", "300"}, args...)...)
		if code != 0 {
			t.Fatalf("export: exit %d: %s", code, stderr)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var tg struct{ Body []byte }
			if err := json.Unmarshal([]byte(line), &tg); err != nil {
				t.Fatal(err)
			}
			var body struct{ RequestID string }
			if err := json.Unmarshal(tg.Body, &body); err != nil {
				t.Fatal(err)
			}
			out = append(out, body.RequestID)
		}
		return out
	}
	if fixed := exp("--fixed-ids"); !slices.Equal(gen, fixed) {
		t.Errorf("generate and export --seed 7 --fixed-ids disagree:\n%q\n%q", gen[:3], fixed[:3])
	}
	if n := distinct(gen, exp(), exp()); n != 900 {
		t.Errorf("two exports of --seed 7 and generate: %d distinct ids in 900", n)
	}

	if code, _, stderr := clitest.Run(t, "send", "--fixed-ids", "--event", ev); code != 2 || !strings.Contains(stderr, "--fixed-ids needs --seed") {
		t.Errorf("--fixed-ids without --seed: exit %d, %s", code, stderr)
	}
}

func distinct(lists ...[]string) int {
	seen := map[string]bool{}
	for _, l := range lists {
		for _, id := range l {
			seen[id] = true
		}
	}
	return len(seen)
}
