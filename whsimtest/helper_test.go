package whsimtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv, set, has the test binary run the child tests below: tests that
// fail on purpose, whose output the parent test reads.
const childEnv = "WHSIMTEST_CHILD"

// childCheckLine is the line of the Check call in TestChildFailsAtItsLine,
// set when it runs.
var childCheckLine int

// TestChildFailsAtItsLine is a receiver's test that fails, run only as a
// child of TestFailuresPointAtTheCheckCall.
func TestChildFailsAtItsLine(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestFailuresPointAtTheCheckCall, which runs it")
	}
	s := newShop(t, storesAgain, "")
	t.Cleanup(func() { t.Logf("check line %d", childCheckLine) })
	_, _, line, _ := runtime.Caller(0)
	childCheckLine = line + 2 // the Check call, two lines down
	Check(t, s, WithProbe(s.probe), WithSettle(0), WithChecks("duplicates", "effects", "signature"), WithSeed(3))
}

// Every line a failing Check says, a case's failure and a skipped check's
// reason included, names the line of the test that called Check, as a
// helper does (t.Helper): never a line inside whsimtest, which tells the
// test's author nothing. go test prints the file:line before each line a
// test says.
func TestFailuresPointAtTheCheckCall(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child run")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildFailsAtItsLine$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); !ok {
		t.Fatalf("the child run: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`check line (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the child said no line:\n%s", out)
	}
	want := "helper_test.go:" + string(m[1]) + ": "
	n, _ := strconv.Atoi(string(m[1]))
	if n == 0 {
		t.Fatalf("line %q", m[1])
	}
	said := 0
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if !regexp.MustCompile(`^\w+\.go:\d+: `).MatchString(l) || strings.Contains(l, "check line") {
			continue
		}
		said++
		if !strings.HasPrefix(l, want) {
			t.Errorf("said at the wrong line, want %s:\n%s", want, l)
		}
	}
	// The seed, a failing effects case, the signature check skipped.
	if said < 3 || !strings.Contains(string(out), "holds 4 records") || !strings.Contains(string(out), "--- SKIP: TestChildFailsAtItsLine/signature") {
		t.Errorf("the child said too little (%d lines):\n%s", said, out)
	}
}

// TestChildCheckURLClosesItsConnections, run only as a child of
// TestCheckURLLeavesNoConnectionOpen, waits until the receiver has seen
// every connection CheckURL opened closed.
func TestChildCheckURLClosesItsConnections(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestCheckURLLeavesNoConnectionOpen, which runs it")
	}
	changed := make(chan http.ConnState, 1024)
	srv := httptest.NewUnstartedServer(newShop(t, careful, ""))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) { changed <- s }
	srv.Start()
	defer srv.Close()
	t.Run("check", func(t *testing.T) { CheckURL(t, srv.URL, WithChecks("accepts-valid", "load"), WithLoad(64, 8)) })
	// Every connection was new before CheckURL returned; each closes after.
	for open := 0; ; {
		switch <-changed {
		case http.StateNew:
			open++
		case http.StateClosed, http.StateHijacked:
			open--
		}
		if open == 0 && len(changed) == 0 {
			return
		}
	}
}

// CheckURL closes the connections it opened before it returns: they are
// its client's, which the test cannot reach, and left idle they are
// goroutines (a persistConn's readLoop and writeLoop) a goleak-style check
// at the end of the test reports, and sockets held open on the receiver.
// The child waits for the receiver to see each closed; left open, it
// never does, and the child's time limit ends it.
func TestCheckURLLeavesNoConnectionOpen(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child run")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildCheckURLClosesItsConnections$", "-test.v", "-test.count=1", "-test.timeout=30s")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestChildCheckURLClosesItsConnections") {
		t.Errorf("connections left open (%v):\n%.2000s", err, out)
	}
}

// TestChildHangs, run only as a child of TestAHungTestSaysItsSeed, has a
// handler that never returns, under a -timeout.
func TestChildHangs(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestAHungTestSaysItsSeed, which runs it")
	}
	never := make(chan struct{})
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-never })
	Check(t, h, WithSeed(11), WithChecks("accepts-valid"), WithTimeout(time.Millisecond))
}

// A test whose handler hangs under go test -timeout stops waiting for it
// a little before the timeout and fails, saying the seed that sends the
// same documents again and why it stopped. It waited past the timeout,
// whose panic ended the test binary with only the test's name (and,
// without -v, none of what it had logged).
func TestAHungTestSaysItsSeed(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("the child run")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildHangs$", "-test.count=1", "-test.timeout=5s")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, _ := cmd.CombinedOutput()
	for _, says := range []string{"--- FAIL: TestChildHangs", "whsimtest: seed 11 (WithSeed(11)", "go test's -timeout was near, so the wait for it stopped"} {
		if !strings.Contains(string(out), says) {
			t.Errorf("the hung test did not say %q:\n%.3000s", says, out)
		}
	}
	if strings.Contains(string(out), "panic: test timed out") {
		t.Errorf("the hung test ran into go test's -timeout:\n%.3000s", out)
	}
}
