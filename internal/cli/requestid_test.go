package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// ids runs whsim and returns the requestIds of its NDJSON stdout.
func ids(t *testing.T, args ...string) []string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
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
// generate and send agree, and other events get other ids.
func TestSeededRequestIDs(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const ev, other = "CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"
	gen := ids(t, "generate", "--seed", "7", "--event", ev, "--count", "300", "--output", "ndjson")
	send := ids(t, "send", "--seed", "7", "--event", ev, "--count", "300", "--output", "json")
	if !slices.Equal(gen, send) {
		t.Errorf("generate and send --seed 7 disagree:\n%q\n%q", gen[:3], send[:3])
	}
	again := ids(t, "send", "--seed", "7", "--event", ev, "--count", "300", "--output", "json")
	if !slices.Equal(send, again) {
		t.Error("the same seed gives other ids")
	}
	both := ids(t, "send", "--seed", "7", "--event", ev+","+other, "--count", "300", "--output", "json")
	alone := ids(t, "send", "--seed", "7", "--event", other, "--count", "300", "--output", "json")
	distinct := func(lists ...[]string) int {
		seen := map[string]bool{}
		for _, l := range lists {
			for _, id := range l {
				seen[id] = true
			}
		}
		return len(seen)
	}
	if n := distinct(both); n != 600 {
		t.Errorf("one run of two events: %d distinct ids in 600 deliveries", n)
	}
	if n := distinct(gen, alone); n != 600 {
		t.Errorf("two runs of one event each: %d distinct ids in 600 deliveries", n)
	}
	if n := distinct(both, gen, alone); n != 600 {
		t.Errorf("a run of two events has %d ids not in the runs of each alone", n-600)
	}
}
