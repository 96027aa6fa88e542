package term

import (
	"os/exec"
	"strings"
	"testing"
)

// frameworkDeps are the whsim packages term may import, directly or
// through another: itself and termsafe, the escaping every output goes
// through. A domain package is not among them: its renderers sit beside
// its command in internal/cli (checkout, sendout, listenout, validateout,
// anonymizeout) and take term's outputs from there.
var frameworkDeps = map[string]bool{
	"github.com/whsim/whsim/internal/term":     true,
	"github.com/whsim/whsim/internal/termsafe": true,
}

// term is the format framework only: it imports no whsim domain package,
// however indirectly (#31).
func TestNoDomainDependencies(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: " + err.Error())
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	// The list is term's graph, not an empty or foreign one: the test
	// could otherwise pass on nothing.
	if !strings.Contains(string(out), "github.com/whsim/whsim/internal/termsafe\n") || !strings.Contains(string(out), "encoding/xml\n") {
		t.Fatalf("go list -deps gave %d packages, not term's graph:\n%s", len(deps), out)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/whsim/whsim/") && !frameworkDeps[p] {
			t.Errorf("term imports %s: a domain's renderers belong beside its command in internal/cli", p)
		}
	}
}
