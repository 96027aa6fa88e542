package attempt

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// neverReadingServer accepts connections and never reads from them nor
// answers: a receiver whose handler never takes the body.
func neverReadingServer(t *testing.T) *url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return &url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/hook"}
}

// A receiver that never reads a body larger than the sockets' buffers
// times the call out: "timeout" alone (and send's "every call timed out
// (a receiver slower than --timeout ...)") sent the user to a slow
// receiver, when the call's write never ended: the body was never taken.
// The words say so, and how much of the call went out, on every path.
func TestBodyNeverTakenSaysSo(t *testing.T) {
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	for _, tt := range []struct {
		name    string
		netHTTP bool
		worker  bool
	}{
		{"default transport, a run's worker", false, true},
		{"default transport, one delivery", false, false},
		{"net/http, a run's worker", true, true},
		{"net/http, one delivery", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := neverReadingServer(t)
			// Long enough for the call to be made and begin to go out on
			// a loaded machine under -race (copying 64 MiB into the
			// worker's buffer took past 300 ms): one that timed out before
			// its connection was had is a plain timeout.
			c, err := NewClient(ClientOptions{Timeout: 3 * time.Second, Concurrency: 1, NetHTTP: tt.netHTTP})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: u}
			req := &Request{Event: tmpl.Event, Query: tmpl.Query, Seq: 1}
			req.FromTemplate(tmpl, reqid.NewIDs(1).For(tmpl.Event), 0)
			var r *Result
			if tt.worker {
				var bb *Buf
				r = d.DeliverWith(context.Background(), req, &bb)
				defer bb.Release()
			} else {
				r = d.Deliver(context.Background(), req)
			}
			a := r.Last()
			if a.Kind != KindTimeout || r.OK {
				t.Fatalf("kind %q, ok %v; want a timeout", a.Kind, r.OK)
			}
			got := ShortError(a)
			want := KindTimeout + ": " + BodyNotTakenWords + ": the write of the call did not complete within the time limit ("
			tail := " bytes of the call written, of a " + strconv.Itoa(len(tmpl.Body)) + "-byte body)"
			if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, tail) {
				t.Fatalf("short error %q, want it to start %q and end %q", got, want, tail)
			}
			// Some of the call went out, not all of it.
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, want), tail))
			if err != nil || n <= 0 || n >= len(tmpl.Body) {
				t.Errorf("%q: %d bytes written, want some, fewer than the body's %d", got, n, len(tmpl.Body))
			}
			if !strings.Contains(a.Err, BodyNotTakenWords) {
				t.Errorf("error %q does not say the body was never taken", a.Err)
			}
		})
	}
}
