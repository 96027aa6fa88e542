package whsimtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// e2eModule writes a receiver team's module into a temporary directory:
// testdata/e2e's test, and a go.mod requiring whsim with a replace to
// this checkout. Its go.sum is whsim's: the same modules, so that go
// resolves everything from the module cache, offline.
func e2eModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "e2e", "shop_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/shop\n\ngo 1.26.0\n\nrequire github.com/whsim/whsim v0.0.0\n\nreplace github.com/whsim/whsim => " + strconv.Quote(root) + "\n"
	for name, b := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "shop_test.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goTest runs go test -v in dir with args and returns its output; a
// failing run is expected (the team's receiver has defects).
func goTest(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(goTool(t), append([]string{"test", "-v", "-count=1"}, args...)...)
	cmd.Dir = dir
	// Offline: the module cache and whsim's go.sum hold every module.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	return string(out)
}

// tree reads the verdict of every test and subtest from go test -v's
// output: name -> PASS, FAIL or SKIP.
func tree(out string) map[string]string {
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+) \(`).FindAllStringSubmatch(out, -1) {
		got[m[2]] = m[1]
	}
	return got
}

// A receiver team's own module imports whsimtest, and go test -v shows
// the battery as a tree of subtests: a check per subtest, a case under
// it; failures with the CLI's reason; -run selects a check and runs only
// its calls.
func TestEndToEndInAModuleOfItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own and runs go test twice")
	}
	t.Parallel()
	dir := e2eModule(t)
	out := goTest(t, dir, "-run", "TestReceiver")
	got := tree(out)
	for name, want := range map[string]string{
		"TestReceiver": "FAIL",
		// No secret: the signature check is no part of the battery, as
		// in whsim check, and so no subtest.
		"TestReceiver/signature": "",
		"TestReceiver/effects/re-delivered/CREATE_RECEIVABLE_DOC/concurrent-x8": "PASS",
		"TestReceiver/effects/lifecycle/ABANDON_RECEIVABLE_DOC/after-create":    "PASS",
		"TestReceiver/accepts-valid/CREATE_RECEIVABLE_DOC/sample":               "PASS",
		"TestReceiver/duplicates/CREATE_PURCHASE_ORDER_INVOICE/concurrent-x8":   "PASS",
		// The team keys its store on the document number, not requestId.
		"TestReceiver/effects/re-delivered/CREATE_RECEIVABLE_DOC/new-request-id-concurrent-x8": "PASS",
		// The team's handler reads the document and checks nothing else.
		"TestReceiver/event-contradicts-body/receipt-body-under-invoice-event": "FAIL",
		"TestReceiver/rejects-malformed/missing-data":                          "FAIL",
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %s", name, got[name], want)
		}
	}
	for _, id := range []string{"accepts-valid", "rejects-malformed", "unknown-event", "event-contradicts-body", "duplicates", "out-of-order", "load", "effects", "latency"} {
		if got["TestReceiver/"+id] == "" {
			t.Errorf("no subtest %s", id)
		}
	}
	for _, says := range []string{
		"missing-data",
		"got 200, want 4xx",
		"whsimtest: seed 5 (WithSeed(5) sends the same documents again)",
	} {
		if !strings.Contains(out, says) {
			t.Errorf("the output does not say %q", says)
		}
	}
	all := handlerCalls(t, out)
	// whsimtest brings the team's module none of whsim's CLI modules.
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cliOnly := range []string{"spf13", "fatih/color", "golang.org/x/term", "chromedp"} {
		if strings.Contains(string(mod), cliOnly) {
			t.Errorf("the team's go.mod now requires %s:\n%s", cliOnly, mod)
		}
	}

	// -run selects the effects check: only its subtests run, and the
	// handler gets only its calls.
	out = goTest(t, dir, "-run", "TestReceiver/effects")
	got = tree(out)
	if got["TestReceiver"] != "PASS" || got["TestReceiver/effects/re-delivered/CREATE_RECEIVABLE_DOC/concurrent-x8"] != "PASS" {
		t.Errorf("effects alone: %v\n%s", got, out)
	}
	for name := range got {
		if name != "TestReceiver" && !strings.HasPrefix(name, "TestReceiver/effects") {
			t.Errorf("-run TestReceiver/effects ran %s", name)
		}
	}
	if n := handlerCalls(t, out); n == 0 || n >= all/2 {
		t.Errorf("effects alone made %d calls of the whole battery's %d", n, all)
	}
}

// handlerCalls is the number of calls the team's handler says it got.
func handlerCalls(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`the handler got (\d+) calls`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no call count in\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
