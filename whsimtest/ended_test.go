package whsimtest

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestChildCheckAfterItsTestCompleted and the test after it, run only as
// children of TestCheckAfterItsTestCompleted, call Check on a test that
// has completed, from a goroutine it left.
func TestChildCheckAfterItsTestCompleted(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestCheckAfterItsTestCompleted, which runs it")
	}
	go func() {
		<-completed // closed by the next test, which runs once this one has completed
		Check(t, http.NotFoundHandler(), WithChecks("accepts-valid"))
		close(checked)
	}()
}

var completed, checked = make(chan struct{}), make(chan struct{})

func TestChildCheckAfterItsTestCompletedNext(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestCheckAfterItsTestCompleted, which runs it")
	}
	close(completed)
	<-checked // never: Check ends the test binary
}

// Check called on a test that has completed cannot fail it: testing
// panics at the first failure said to it, ending the test binary. The
// panic says what happened and what to do, not testing's bare "Fail in
// goroutine after ... has completed", whose stack runs through whsimtest.
func TestCheckAfterItsTestCompleted(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child run")
	}
	t.Parallel()
	out := childRun(t, "^TestChildCheckAfterItsTestCompleted(Next)?$")
	want := "panic: whsimtest.Check ran on TestChildCheckAfterItsTestCompleted after it had completed " +
		"(called from a goroutine the test did not wait for): a completed test cannot be failed, so nothing it found can be said; " +
		"call Check in the test's body, or wait for the goroutine that calls it before the test returns\n"
	if !strings.Contains(out, want) {
		t.Errorf("the child did not say %q:\n%.3000s", want, out)
	}
}

// childRun runs the tests pattern selects in a child test binary, and
// returns what it said, a failure and a panic included.
func childRun(t *testing.T, pattern string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, _ := cmd.CombinedOutput()
	return string(out)
}
