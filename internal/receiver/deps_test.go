package receiver

import (
	"os/exec"
	"strings"
	"testing"
)

// The receiving side (capture, receiver, inspect, anonymize) and validate
// import none of the sending side (#20): attempt, load, check and replay
// are the sending packages, and a receiving package that learned one of
// them made the old deliver package the hub everything had to learn.
func TestImportsNoSendingSide(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: " + err.Error())
	}
	receiving := []string{"../capture", ".", "../inspect", "../anonymize", "../validate"}
	for _, dir := range receiving {
		out, err := exec.Command(goTool, "list", "-deps", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", dir, err, out)
		}
		// The package's own graph, not an empty one: the test could
		// otherwise pass on nothing.
		if !strings.Contains(string(out), "github.com/whsim/whsim/internal/spec\n") {
			t.Fatalf("go list -deps %s gave no spec, not a whsim package's graph:\n%s", dir, out)
		}
		for _, p := range strings.Fields(string(out)) {
			for _, sending := range []string{"attempt", "load", "check", "replay"} {
				if p == "github.com/whsim/whsim/internal/"+sending {
					t.Errorf("%s imports %s, a package of the sending side", strings.TrimPrefix(dir, "../"), p)
				}
			}
		}
	}
}
