package check

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// shortTimeout is the time limit of a run that waits it out.
const shortTimeout = 2 * time.Second

// firstBurstReceiver answers no call: it closes the connection of each,
// but holds those for which hold (by arrival, from 1, and the call)
// says so until the test ends, or until release is closed, then answers
// them 200.
func firstBurstReceiver(t *testing.T, hold func(n int, r *http.Request) bool, release <-chan struct{}) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	arrived := 0
	end := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		arrived++
		n := arrived
		mu.Unlock()
		if hold(n, r) {
			select {
			case <-end:
			case <-release:
			}
			return
		}
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(end) }) // before Close, which waits for the held
	return srv
}

// A receiver that closes every document's first call (a create) and holds
// every other second one (a job's follow-up), never answered: the run ends as
// soon as the closed calls make the row long enough, saying which calls
// were closed and which the receiver still held, not only "no answer from
// URL: ... (connection closed)". Each held call was sent after its
// create's failure was read, so its answer would not have been the
// receiver's first: the run stopped before the time limit, where they
// would have been timeouts (a job's second call was numbered before its
// first's failure was read, as if sent before it, and held the row back
// until it timed out). Found by ck47.
func TestFirstBurstClosedThenHeldSaysWhichCallsStopped(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	follows := 0
	srv := firstBurstReceiver(t, func(_ int, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Query().Get("businessType"), "CREATE_") {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		follows++
		return follows%2 == 1
	}, nil)
	cfg := testConfig(t, srv.URL)
	cfg.Checks = []string{Load}
	_, _, err := run(t, context.Background(), cfg)
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err %v, want the receiver found never to answer", err)
	}
	msg := err.Error()
	for _, want := range []string{"calls in a row got no answer (connection closed: calls ", "were still in flight without an answer when the run stopped (calls "} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q, want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "timeout") {
		t.Errorf("%q: the run waited the time limit for calls sent after the failures were read", msg)
	}
}

// A receiver that holds some calls of load's first burst, before any
// answer was read, and closes the rest, never answered: the run waits for
// the held calls up to the time limit, since an answer to one would be
// the receiver's first (TestFirstBurstHeldAnsweredLateIsSaid), and says
// so: "no answer from URL: ... (connection closed)" left a run that took
// the whole --timeout unexplained, and its timeouts unsaid. Found by ck47.
func TestFirstBurstHeldSaysWhyTheRunWaited(t *testing.T) {
	t.Parallel()
	srv := firstBurstReceiver(t, func(n int, _ *http.Request) bool { return n <= 16 && n%4 == 1 }, nil)
	cfg := testConfig(t, srv.URL)
	cfg.Client = testClient(t, shortTimeout)
	cfg.Checks = []string{Load}
	_, _, err := run(t, context.Background(), cfg)
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err %v, want the receiver found never to answer", err)
	}
	msg := err.Error()
	for _, want := range []string{"timeout: calls ", "connection closed: calls ",
		"the run waited out the time limit (" + shortTimeout.String() + ") for call",
		"which got no answer within it: sent before any call's failure was read, to a receiver that had answered nothing, an answer to any would have been its first"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q, want it to say %q", msg, want)
		}
	}
}

// Why the run waits for calls held from the first burst: a receiver that
// holds some of them and closes the rest may answer the held ones at
// last, after every other call failed, and has then answered: a run that
// stopped without them said it never did (exit 2, "no answer from"). Here
// the held calls are let go once 30 calls after them were closed.
func TestFirstBurstHeldAnsweredLateIsSaid(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	closed := 0
	srv := firstBurstReceiver(t, func(n int, _ *http.Request) bool {
		if n <= 16 && n%4 == 1 {
			return true
		}
		mu.Lock()
		defer mu.Unlock()
		if closed++; closed == 30 {
			close(release)
		}
		return false
	}, release)
	cfg := testConfig(t, srv.URL)
	cfg.Checks = []string{Load}
	sum, _, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("err %v, want a stop after the 4 calls answered late", err)
	}
	if sum.Stopped == nil {
		t.Fatal("stop <nil>, want one: the receiver closed every call but the 4 it held")
	}
	if want := "after it answered 4 calls, before any case they belong to was graded"; sum.Stopped.Where() != want {
		t.Errorf("where %q, want %q", sum.Stopped.Where(), want)
	}
}

// A receiver that refuses every connection of load's first burst was
// never reached: "cannot reach URL: ...", as of a run whose first call is
// refused, not "no answer from", which says calls went out to it (the
// stop's words of calls that got different things or were held said it
// of any such row). Found by ck47.
func TestFirstBurstRefusedCannotReach(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: each connection is refused
	cfg := testConfig(t, "http://"+addr+"/hook")
	cfg.Checks = []string{Load}
	_, _, err = run(t, context.Background(), cfg)
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err %v, want the receiver found never to answer", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "cannot reach ") || !strings.Contains(msg, "connection refused") {
		t.Errorf("%q, want cannot reach ...: connection refused", msg)
	}
}
