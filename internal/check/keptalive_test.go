package check

import (
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// closesSecondCall is a receiver that answers the first call on each
// connection with a 200, keeping it alive, and closes the connection on
// the second call, unanswered.
func closesSecondCall(t *testing.T) net.Listener {
	return rawReceiver(t, func(k int) (string, bool) { return ok200, k == 0 })
}

// A receiver that answers the first call on each connection, keeping it
// alive (no Connection: close), and ends the connection on the next call
// with no answer: what a receiver whose idle timeout is shorter than the
// sender's, or whose handler dies on a call, shows a sender. Load must say
// what was seen (calls lost on kept-alive connections the receiver
// closed), not that the receiver buckles under load: its answers were all
// 2xx and quick.
func TestLoadNamesKeptAliveConnectionsClosedAsCallsWentOut(t *testing.T) {
	t.Parallel()
	ln := closesSecondCall(t)

	cfg := testConfig(t, "http://"+ln.Addr().String())
	cfg.Signer = nil
	cfg.Checks = []string{Load}
	cfg.LoadCount, cfg.LoadConcurrency = 40, 4
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load := ofCheck(results, Load)
	if len(load) != 1 || sum.Checks[Load].Fail != 1 {
		t.Fatalf("load %+v, want it failed: calls went unanswered", *sum.Checks[Load])
	}
	why := load[0].Reason
	t.Log(why)
	if strings.Contains(why, "buckles under load") || !strings.Contains(why, "kept-alive connections the receiver closed") {
		t.Errorf("reason %q, want the kept-alive connections closed as calls went out named", why)
	}
}

// A case whose one call went out on a kept-alive connection the receiver
// closed with no answer says so in its reason: "connection closed" alone
// reads as the receiver refusing that call, when an idle timeout shorter
// than the sender's closes a connection just as a call arrives, and a
// sender would make the call again on a new connection.
func TestCaseNamesKeptAliveConnectionClosedAsCallWentOut(t *testing.T) {
	t.Parallel()
	ln := closesSecondCall(t)

	cfg := testConfig(t, "http://"+ln.Addr().String())
	cfg.Signer = nil
	cfg.Checks = []string{acceptsValid}
	_, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	closed := 0
	for _, r := range ofCheck(results, acceptsValid) {
		if r.Status != 0 {
			continue
		}
		closed++
		if !strings.Contains(r.Reason, "on a kept-alive connection the receiver closed as the call went out") {
			t.Errorf("%s: reason %q, want the kept-alive connection closed as the call went out named", r.Case.Name, r.Reason)
		}
	}
	if closed == 0 {
		t.Fatal("no call was closed unanswered: the test receiver did not do its part")
	}
}

// A receiver that closes each kept-alive connection on its next call is
// still answering: each call on a new connection gets its answer. Calls
// lost so are failures of their cases (the reasons above), never "the
// receiver stopped answering": a burst that reused the pool's connections
// stopped the run there, every check after it not run.
func TestKeptAliveConnectionsClosedDoNotStopTheRun(t *testing.T) {
	t.Parallel()
	ln := closesSecondCall(t)

	cfg := testConfig(t, "http://"+ln.Addr().String())
	cfg.Signer = nil
	cfg.Checks = []string{acceptsValid, duplicates, outOfOrder, Latency}
	sum, _, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stopped != nil || len(sum.NotRun) > 0 {
		t.Fatalf("stopped %+v, not run %v: want every check run against a receiver that answers every new connection", sum.Stopped, sum.NotRun)
	}
}

// answersFirstCallOnly is a receiver on raw TCP that answers the first
// call on each connection with a 200, keeping it alive, and never answers
// a later call on it: it reads the call and holds the connection open.
// held counts the calls it holds so.
func answersFirstCallOnly(t *testing.T) (url string, held *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	held = new(atomic.Int32)
	serveCalls(ln, func(_, k int, c net.Conn) bool {
		if k > 0 {
			held.Add(1) // read on: the sender ends the connection
			return true
		}
		_, err := io.WriteString(c, ok200)
		return err == nil
	})
	return "http://" + ln.Addr().String() + "/hook", held
}

// A receiver that answers the first call on each connection and none
// after it on the same connection made every case sent on a kept-alive
// connection wait the whole time limit, saying only "timeout": minutes
// for a run, its verdicts about keep-alive, not the cases, and a run that
// stopped, "the receiver stopped answering", of a receiver that answers
// every new connection. The run says what it saw once, makes its later
// calls each on a new connection, and the cases held so say where.
func TestCheckNamesKeepAliveAnsweringTheFirstCallOnly(t *testing.T) {
	t.Parallel()
	url, held := answersFirstCallOnly(t)

	cfg := testConfig(t, url)
	cfg.Client = testClient(t, 5*time.Second)
	cfg.Signer = nil
	cfg.Checks = []string{acceptsValid, rejectsMalformed, duplicates, Latency}
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stopped != nil || len(sum.NotRun) > 0 {
		t.Errorf("stopped %+v, not run %v: the receiver answers every new connection", sum.Stopped, sum.NotRun)
	}
	notes := (&SummaryReport{Summary: sum}).Notes()
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "no call on a kept-alive connection was answered: ") }) {
		t.Errorf("notes %q, want keep-alive named", notes)
	}
	// Each call held waited the whole time limit: those in flight when
	// the first was seen, not every call the run made after it.
	if n := held.Load(); n == 0 || n > 2*int32(cfg.Concurrent) {
		t.Errorf("%d calls went out on a kept-alive connection, want some (the receiver's defect shown) and no more than those in flight as the first got no answer, %d at most", n, 2*cfg.Concurrent)
	}
	stalled := 0
	for _, r := range results {
		if strings.Contains(r.Reason, "on a kept-alive connection") {
			stalled++
			if r.Verdict != Fail {
				t.Errorf("%s/%s: %s, %s; want it failed: the call got no answer", r.Case.Check, r.Case.Name, r.Verdict, r.Reason)
			}
			continue
		}
		if r.Case.Check == acceptsValid && r.Verdict != Pass {
			t.Errorf("%s/%s: %s, %s; want it passed, made on a new connection", r.Case.Check, r.Case.Name, r.Verdict, r.Reason)
		}
	}
	if stalled == 0 {
		t.Error("no case says its call went out on a kept-alive connection")
	}
}

// The same receiver under load, on net/http's path (the fast path's lanes
// keep connections of their own, and do not say which calls went out on
// one kept alive): the load said the receiver buckles under load, of
// calls held on kept-alive connections, and went on making its calls on
// them. It says what it saw, and its later calls go on new connections.
//
// On the transport of this run of the tests too (testClient: the fast
// path by default), where no call said it went out on a kept-alive
// connection before, and the load said the receiver buckles under load.
func TestLoadNamesKeepAliveAnsweringTheFirstCallOnly(t *testing.T) {
	t.Parallel()
	netHTTP, err := attempt.NewClient(attempt.ClientOptions{Timeout: 5 * time.Second, Concurrency: 16, NetHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		client *http.Client
	}{{"net/http", netHTTP}, {"the run's transport", testClient(t, 5*time.Second)}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, held := answersFirstCallOnly(t)
			cfg := testConfig(t, url)
			t.Cleanup(tt.client.CloseIdleConnections)
			cfg.Client, cfg.Signer = tt.client, nil
			cfg.Checks = []string{Load}
			cfg.LoadCount, cfg.LoadConcurrency = 64, 4
			sum, results, err := run(t, context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			load := ofCheck(results, Load)
			if len(load) != 1 {
				t.Fatalf("load results %+v", load)
			}
			why := load[0].Reason
			if strings.Contains(why, "buckles under load") || !strings.Contains(why, "see the note on kept-alive connections") {
				t.Errorf("load: %s, %q; want keep-alive named, not load", load[0].Verdict, why)
			}
			if notes := (&SummaryReport{Summary: sum}).Notes(); !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "no call on a kept-alive connection was answered: ") }) {
				t.Errorf("notes %q, want keep-alive named", notes)
			}
			if n := held.Load(); n == 0 || n > 2*int32(cfg.LoadConcurrency) {
				t.Errorf("%d calls went out on a kept-alive connection, want some and no more than those in flight as the first got no answer, %d at most", n, 2*cfg.LoadConcurrency)
			}
		})
	}
}
