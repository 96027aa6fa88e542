package whsimtest

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
)

// TestChildChecksWhereNoSubtest, run only as a child of
// TestCheckWhereNoSubtestCanBeMade, calls Check and CheckURL where
// testing forbids the subtests they make: inside a testing/synctest
// bubble, and in a t.Cleanup function.
func TestChildChecksWhereNoSubtest(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestCheckWhereNoSubtestCanBeMade, which runs it")
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	t.Run("bubble", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { Check(t, h, WithChecks("accepts-valid")) })
	})
	t.Run("bubble-url", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { CheckURL(t, "http://127.0.0.1:9/", WithChecks("accepts-valid")) })
	})
	t.Run("cleanup", func(t *testing.T) {
		t.Cleanup(func() { Check(t, h, WithChecks("accepts-valid")) })
	})
}

// Check and CheckURL make each check a subtest, which testing forbids
// inside a testing/synctest bubble and in a t.Cleanup function: there
// they fail the test with one message that says why and what to do, not
// with testing's panic (which ended the whole test binary, every other
// test's verdict lost).
func TestCheckWhereNoSubtestCanBeMade(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child run")
	}
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildChecksWhereNoSubtest$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, _ := cmd.CombinedOutput()
	said := string(out)
	if strings.Contains(said, "panic:") {
		t.Fatalf("the child panicked:\n%.3000s", said)
	}
	for _, want := range []string{
		"--- FAIL: TestChildChecksWhereNoSubtest/bubble ",
		"whsimtest.Check cannot run inside a testing/synctest bubble: it makes each check a subtest (t.Run), which synctest.Test forbids; call it outside synctest.Test, or call whsimtest.Run(t.Context(), h, ...) inside and fail on its Report",
		"--- FAIL: TestChildChecksWhereNoSubtest/bubble-url ",
		"whsimtest.CheckURL cannot run inside a testing/synctest bubble",
		"--- FAIL: TestChildChecksWhereNoSubtest/cleanup ",
		"whsimtest.Check cannot run in a t.Cleanup function: it makes each check a subtest (t.Run), which testing forbids during cleanup; call it in the test's body",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("the child did not say %q:\n%.3000s", want, said)
		}
	}
	// Each said at the line of the test that called Check (a helper's
	// failure), not inside testing.
	if n := len(regexp.MustCompile(`(?m)^\s+bubble_test\.go:\d+: whsimtest\.Check(URL)? cannot run`).FindAllString(said, -1)); n != 3 {
		t.Errorf("said %d of 3 failures at the test's line:\n%.3000s", n, said)
	}
}

// Run makes no subtest: inside a bubble it runs the battery, on the
// bubble's clock.
func TestRunInABubble(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rep, err := Run(context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), WithChecks("accepts-valid"))
		if err != nil || len(rep.Cases) == 0 {
			t.Fatalf("Run in a bubble: %v, %+v", err, rep)
		}
	})
}
