package whsimtest

import (
	"os/exec"
	"strings"
	"testing"
)

// goTool is the go command, for the tests that run it; a test without one
// is skipped saying so.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: " + err.Error())
	}
	return p
}

// The package a receiver's test imports holds no CLI or terminal code:
// cobra, viper, colour and terminal packages stay in whsim's CLI layer.
func TestNoCLIOrTerminalDependencies(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(goTool(t), "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !strings.Contains(string(out), "github.com/whsim/whsim/internal/check\n") {
		t.Fatalf("go list -deps gave %d packages, not check's graph:\n%s", len(deps), out)
	}
	for _, p := range deps {
		for _, bad := range []string{
			"github.com/spf13/", "github.com/fatih/color", "golang.org/x/term", "github.com/mattn/go-isatty",
			"github.com/mattn/go-colorable", "github.com/whsim/whsim/internal/term", "github.com/whsim/whsim/internal/cli",
		} {
			if p == bad || strings.HasPrefix(p, bad+"/") || strings.HasSuffix(bad, "/") && strings.HasPrefix(p, bad) {
				t.Errorf("whsimtest imports %s", p)
			}
		}
	}
}
