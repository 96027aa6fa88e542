package whsimtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// docs/whsimtest.md names every module the package adds to a module that
// imports it: what go list -deps reaches outside the standard library and
// whsim.
func TestDocsNameEveryModuleItAdds(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(goTool(t), "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var mods []string
	for _, m := range strings.Fields(string(out)) {
		if m != "github.com/whsim/whsim" && !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	if len(mods) == 0 {
		t.Fatalf("go list -deps named no module but whsim:\n%s", out)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "whsimtest.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, deps, _ := strings.Cut(string(doc), "## Dependencies and cost")
	for _, m := range mods {
		if !strings.Contains(deps, "`"+m+"`") {
			t.Errorf("docs/whsimtest.md, Dependencies and cost, does not name the module %s, which the package adds", m)
		}
	}
}
