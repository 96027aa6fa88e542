package generatecmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/cli/clitest"
)

// TestCountSplits holds what docs/concepts.md says a seed repeats across
// --count: one event's first k payloads of --count n are --count k's,
// byte for byte; with several events, the first event's are, and every
// event's k-th payload keeps its requestId, while a later event's content
// follows the earlier events' payloads in the seeded stream.
func TestCountSplits(t *testing.T) {
	t.Parallel()
	lines := func(args ...string) []string {
		t.Helper()
		code, out, errb := clitest.Run(t, append([]string{"generate", "--seed", "5", "-o", "ndjson"}, args...)...)
		if code != 0 {
			t.Fatalf("generate %v: exit %d: %s", args, code, errb)
		}
		return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	}
	for _, e := range []string{"CREATE_PURCHASE_ORDER_INVOICE", "ABANDON_RECEIVABLE_DOC"} {
		five, two := lines("--event", e, "--count", "5"), lines("--event", e, "--count", "2")
		if len(five) != 5 || len(two) != 2 || five[0] != two[0] || five[1] != two[1] {
			t.Errorf("%s: --count 2 is not the first 2 of --count 5", e)
		}
	}
	both := "CREATE_RECEIVABLE_DOC,AUDIT_PURCHASE_ORDER_INVOICE"
	five, two := lines("--event", both, "--count", "5"), lines("--event", both, "--count", "2")
	if len(five) != 10 || len(two) != 4 || five[0] != two[0] || five[1] != two[1] {
		t.Fatalf("%s: --count 2's first event is not the first 2 of --count 5's", both)
	}
	for k := range 2 {
		if id(t, five[5+k]) != id(t, two[2+k]) {
			t.Errorf("the second event's payload %d: requestId %s under --count 5, %s under --count 2", k+1, id(t, five[5+k]), id(t, two[2+k]))
		}
	}
}

func id(t *testing.T, line string) string {
	t.Helper()
	var b struct {
		RequestID string `json:"requestId"`
	}
	if err := json.Unmarshal([]byte(line), &b); err != nil {
		t.Fatal(err)
	}
	return b.RequestID
}
