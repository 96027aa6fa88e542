package attempt

import (
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// silentServer accepts connections, reads what comes (the call whole),
// writes head, if any, and never answers more.
func silentServer(t *testing.T, head string) *url.URL {
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
			if head != "" {
				_, _ = io.WriteString(c, head)
			}
			go func() { _, _ = io.Copy(io.Discard, c) }()
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

// A receiver that takes the call and never answers timed it out with
// net/http's "context deadline exceeded (Client.Timeout exceeded while
// awaiting headers)", and send's last line said "a receiver slower than
// --timeout, or one that cannot be reached": not that the connection was
// made and the call written whole, nor whether bytes of an answer came,
// nor how long it waited. The error says them, and Silent holds them, on
// every path; the short words of check's reasons stay "timeout".
func TestTimeoutSaysWhatPassed(t *testing.T) {
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: []byte(`{"requestId":"x","businessType":4010,"data":{}}`)}
	for _, tt := range []struct {
		name    string
		netHTTP bool
		worker  bool
		head    string
	}{
		{"default transport, a run's worker", false, true, ""},
		{"default transport, one delivery", false, false, ""},
		{"net/http, a run's worker", true, true, ""},
		{"net/http, one delivery", true, false, ""},
		{"default transport, a run's worker, part of a head", false, true, "HTTP/1.1 200 OK\r\n"},
		{"net/http, one delivery, part of a head", true, false, "HTTP/1.1 200 OK\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := silentServer(t, tt.head)
			c, err := NewClient(ClientOptions{Timeout: 500 * time.Millisecond, Concurrency: 1, NetHTTP: tt.netHTTP})
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
			s := a.Silent
			if s == nil {
				t.Fatalf("error %q: no Silence", a.Err)
			}
			if !s.Whole || s.Wrote <= len(req.Body) || s.Body != len(req.Body) || s.Read != len(tt.head) || s.Waited != 500*time.Millisecond {
				t.Errorf("silence %+v, want the call written whole (more than its %d-byte body), %d bytes of an answer, 500ms", *s, len(req.Body), len(tt.head))
			}
			if want := s.Words(); !strings.HasSuffix(a.Err, ": "+want) {
				t.Errorf("error %q, want it to end %q", a.Err, want)
			}
			if strings.Contains(a.Err, "awaiting headers") {
				t.Errorf("error %q says net/http's words", a.Err)
			}
			if got := ShortError(a); got != KindTimeout {
				t.Errorf("short error %q, want %q", got, KindTimeout)
			}
		})
	}
}
