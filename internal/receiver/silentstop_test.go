package receiver

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A connection that sent nothing (a client's pool connects ahead: Go's
// transport dials a spare connection for a call another one carries)
// held listen's stop: net/http's shutdown waits five seconds for one,
// whatever the calls in flight, so with a grace shorter than that the
// stop said "the connections still open 3s after the stop were closed"
// (exit 130) of a listen that had answered every call. The stop closes
// such connections, and the calls on the others are as before.
func TestStopClosesConnectionsThatSentNothing(t *testing.T) {
	if !readsQueued {
		t.Skip("off Linux a connection's waiting bytes cannot be read at the stop, and net/http's wait is kept")
	}
	t.Parallel()
	rec := &memRecorder{}
	rcv := New(Config{Capture: rec, Checker: fakeChecker{}})
	limits := DefaultLimits
	limits.ShutdownTimeout = 3 * time.Second // below net/http's five
	s, err := Listen("127.0.0.1:0", rcv, limits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.ServeGrace(ctx, nil) }()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Post(s.URL()+"/hook?businessType="+ev, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	silent, err := net.Dial("tcp", s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	wl := s.ln.(*watchListener)
	for {
		wl.freshMu.Lock()
		n := len(wl.fresh)
		wl.freshMu.Unlock()
		if n == 1 {
			break // the silent connection accepted, and no request on it
		}
		runtime.Gosched()
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("ServeGrace = %v, want nil: no call was in flight", err)
	}
	rcv.Close()
	if n, err := silent.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("the silent connection read %d bytes, %v; want it closed", n, err)
	}
	if len(rec.recs) != 1 {
		t.Errorf("%d records, want the one call's", len(rec.recs))
	}
}
