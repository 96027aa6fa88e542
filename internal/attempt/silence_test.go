package attempt

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// silentServer accepts connections, reads the call whole, then writes
// head, if any, and never answers more.
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
			go func() {
				// The call read whole first: bytes before it are no
				// answer of its.
				br := bufio.NewReader(c)
				if r, err := http.ReadRequest(br); err == nil {
					_, _ = io.Copy(io.Discard, r.Body)
					if head != "" {
						_, _ = io.WriteString(c, head)
					}
				}
				_, _ = io.Copy(io.Discard, br)
			}()
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

func TestSilenceWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s           Silence
		words, grup string
	}{
		{Silence{Wrote: 1634, Whole: true, Body: 1459, Waited: 5 * time.Second},
			"no answer within the time limit (5s): the call was written whole (1,634 bytes; whether the receiver read them is not known) and no byte of an answer came",
			"the call was written whole and no byte of an answer came within the time limit"},
		{Silence{Wrote: 1634, Whole: true, Body: 1459, Read: 1, Waited: time.Second},
			"no answer within the time limit (1s): the call was written whole (1,634 bytes; whether the receiver read them is not known) and 1 byte of an answer came, not its whole head",
			"the call was written whole and bytes of an answer came, not its whole head, within the time limit"},
		{Silence{Wrote: 65536, Body: 262144, Waited: time.Second}, "",
			BodyNotTakenWords + ": the write of the call did not complete within the time limit"},
	} {
		if tt.s.Whole {
			if got := tt.s.Words(); got != tt.words {
				t.Errorf("%+v: words %q\nwant %q", tt.s, got, tt.words)
			}
		}
		if got := tt.s.Group(); got != tt.grup {
			t.Errorf("%+v: group %q\nwant %q", tt.s, got, tt.grup)
		}
	}
}

// Calls whose body was never taken, that differ only in how many bytes
// of them went out, are one group: ShortError's counts split check's
// load reason into a group per count ("1 timeout: ... (65536 bytes ...),
// 1 timeout: ... (131072 bytes ...)").
func TestErrorGroupOfBodiesNeverTaken(t *testing.T) {
	t.Parallel()
	res := &Result{Request: &Request{Body: make([]byte, 262144)}}
	var groups []string
	for _, n := range []int{0, 65536, 131072} {
		a := Attempt{Kind: KindTimeout, Err: `Post "http://h/hook": ` + notTakenWords(n, res), Silent: &Silence{Wrote: n, Body: 262144, Waited: time.Second}}
		groups = append(groups, ErrorGroup(a))
		if ShortError(a) == ErrorGroup(a) {
			t.Errorf("%d bytes: the short error %q lost its count", n, ShortError(a))
		}
	}
	want := KindTimeout + ": " + BodyNotTakenWords + ": the write of the call did not complete within the time limit"
	for _, g := range groups {
		if g != want {
			t.Errorf("group %q, want %q", g, want)
		}
	}
	plain := Attempt{Kind: KindTimeout, Err: "context deadline exceeded"}
	if got := ErrorGroup(plain); got != KindTimeout {
		t.Errorf("a timeout not measured: group %q, want %q", got, KindTimeout)
	}
}
