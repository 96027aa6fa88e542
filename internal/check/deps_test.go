package check

import (
	"os/exec"
	"strings"
	"testing"
)

// The grader links no receiving side (#31): check once imported replay
// for one function and, through it, the web inspector, and receiver for
// two check ids. Ids both sides need live in spec.
func TestLinksNoReceivingSide(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: " + err.Error())
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	// check's own graph, not an empty or foreign one: the test could
	// otherwise pass on nothing.
	if !strings.Contains(string(out), "github.com/whsim/whsim/internal/attempt\n") {
		t.Fatalf("go list -deps gave no attempt, not check's graph:\n%s", out)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, receiving := range []string{"inspect", "replay", "receiver"} {
			if p == "github.com/whsim/whsim/internal/"+receiving {
				t.Errorf("check imports %s, a package of the receiving side", p)
			}
		}
	}
}
