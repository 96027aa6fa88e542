package attempt

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// A receiver over HTTP/2 that reads a call's stream and then resets it
// got the call again, unseen: net/http's HTTP/2 transport makes a call
// again on its own after a RST_STREAM of PROTOCOL_ERROR (on a new
// connection, at once, until the time limit: thousands of copies in a
// few seconds, reported as one timeout) or REFUSED_STREAM, and after a
// GOAWAY whose last stream is below the call's; an empty body (a
// replayed GET) it makes again without asking for it. Each call the
// receiver reads is one counted attempt: the reset is the attempt's
// failure, named with its code, and a re-send is whsim's own retry.
func TestHTTP2ResetStreamNotSentAgain(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w *h2Writer, id uint32)
		want   string
	}{
		{"PROTOCOL_ERROR", func(w *h2Writer, id uint32) { w.rst(id, http2.ErrCodeProtocol) }, "error: stream reset by the receiver (PROTOCOL_ERROR)"},
		{"REFUSED_STREAM", func(w *h2Writer, id uint32) { w.rst(id, http2.ErrCodeRefusedStream) }, "error: stream reset by the receiver (REFUSED_STREAM)"},
		{"INTERNAL_ERROR", func(w *h2Writer, id uint32) { w.rst(id, http2.ErrCodeInternal) }, "error: stream reset by the receiver (INTERNAL_ERROR)"},
		{"GOAWAY below the call", func(w *h2Writer, id uint32) {
			w.do(func(fr *http2.Framer) error { return fr.WriteGoAway(id-1, http2.ErrCodeNo, nil) })
		}, "error: connection shut down by the receiver (GOAWAY) before it took the call"},
		{"GOAWAY above the call, no answer", func(w *h2Writer, id uint32) {
			w.do(func(fr *http2.Framer) error { return fr.WriteGoAway(id, http2.ErrCodeNo, nil) })
			w.c.Close()
		}, "error: connection shut down by the receiver (GOAWAY NO_ERROR)"},
	}
	methods := []struct {
		name   string
		method string
		body   []byte
	}{
		{"POST", "", []byte(`{}`)},
		{"GET", http.MethodGet, nil},
	}
	for _, c := range cases {
		for _, m := range methods {
			for _, retries := range []int{0, 2} {
				name := strings.Join([]string{c.name, m.name, "retries " + string(rune('0'+retries))}, "/")
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					srv := newH2Server(t, nil, c.answer)
					cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, RootCAs: srv.roots})
					if err != nil {
						t.Fatal(err)
					}
					d := &Deliverer{Client: cl, Target: srv.url(), Retries: retries, Sleep: func(context.Context, time.Duration) error { return nil }}
					r := d.Deliver(context.Background(), &Request{Method: m.method, Body: m.body})
					if r.OK || r.Tries() != retries+1 {
						t.Errorf("want %d failed attempts, got %+v", retries+1, r.Attempts)
					}
					if got := srv.streams.Load(); got != int64(r.Tries()) {
						t.Errorf("the receiver read %d calls, whsim counted %d attempts", got, r.Tries())
					}
					if got := ShortError(r.Last()); got != c.want {
						t.Errorf("the attempt's error is %q, want %q", got, c.want)
					}
				})
			}
		}
	}
}

// An HTTP/2 receiver's malformed answer is a failure named for what was
// wrong, from one call.
func TestHTTP2MalformedAnswer(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w *h2Writer, id uint32)
		status int
		want   string // ShortError, or Unfinished for an answer
	}{
		{"invalid :status", func(w *h2Writer, id uint32) { w.headers(id, true, ":status", "2x0") }, 0,
			"error: stream reset by whsim for the receiver's protocol error (PROTOCOL_ERROR): malformed response from server: malformed non-numeric status pseudo header"},
		{"DATA past content-length", func(w *h2Writer, id uint32) {
			w.headers(id, false, ":status", "200", "content-length", "2")
			w.do(func(fr *http2.Framer) error { return fr.WriteData(id, true, []byte("okay")) })
		}, 200, "answer body unreadable (net/http: server replied with more than declared Content-Length; truncated)"},
		{"RST after the answer's head", func(w *h2Writer, id uint32) {
			w.headers(id, false, ":status", "200", "content-length", "10")
			w.do(func(fr *http2.Framer) error { return fr.WriteData(id, false, []byte("ok")) })
			w.rst(id, http2.ErrCodeInternal)
		}, 200, "answer body unreadable (stream reset by the receiver (INTERNAL_ERROR))"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := newH2Server(t, nil, c.answer)
			cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, RootCAs: srv.roots})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: cl, Target: srv.url()}
			r := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
			a := r.Last()
			got := ShortError(a)
			if a.Status != 0 {
				got = a.Unfinished()
			}
			if r.OK || a.Status != c.status || got != c.want {
				t.Errorf("got status %d, %q; want %d, %q", a.Status, got, c.status, c.want)
			}
			if n := srv.streams.Load(); n != 1 {
				t.Errorf("the receiver read %d calls, want 1", n)
			}
		})
	}
}

// A receiver that takes one stream at a time
// (SETTINGS_MAX_CONCURRENT_STREAMS 1) gets each of many concurrent
// calls once, and answers each.
func TestHTTP2OneStreamAtATime(t *testing.T) {
	srv := newH2Server(t, []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 1}}, func(w *h2Writer, id uint32) {
		w.headers(id, true, ":status", "200")
	})
	const workers, each = 16, 4
	cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: workers, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: cl, Target: srv.url()}
	var wg sync.WaitGroup
	var tries atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				r := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
				tries.Add(int64(r.Tries()))
				if !r.OK {
					t.Errorf("a call failed: %+v", r.Attempts)
				}
			}
		}()
	}
	wg.Wait()
	if got, want := srv.streams.Load(), tries.Load(); got != want || want != workers*each {
		t.Errorf("the receiver read %d calls, whsim counted %d attempts, want %d", got, want, workers*each)
	}
}

// CloseIdleConnections closes a client's idle HTTP/2 connections, as
// net/http's own HTTP/2 support did: a replay from inspect makes a client
// of its own and leaves no connection open behind it.
func TestHTTP2CloseIdleConnections(t *testing.T) {
	for _, follow := range []bool{false, true} {
		srv := newH2Server(t, nil, func(w *h2Writer, id uint32) { w.headers(id, true, ":status", "200") })
		cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, RootCAs: srv.roots, FollowRedirects: follow})
		if err != nil {
			t.Fatal(err)
		}
		d := &Deliverer{Client: cl, Target: srv.url()}
		if r := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}); !r.OK {
			t.Fatalf("follow %v: %+v", follow, r.Attempts)
		}
		cl.CloseIdleConnections()
		select {
		case <-srv.ended:
		case <-time.After(5 * time.Second):
			t.Errorf("follow %v: the idle HTTP/2 connection is still open", follow)
		}
	}
}
