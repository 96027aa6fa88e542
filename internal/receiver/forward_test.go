package receiver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// resetSecondBackend is a receiver that reads every call whole, answers
// the first call on each connection 200 and keeps it alive, and resets
// the connection on the second, unanswered: a receiver that crashed
// after it read (and may have stored) the call.
type resetSecondBackend struct {
	ln    net.Listener
	calls atomic.Int32
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn // closed at cleanup: listen's client keeps them idle
}

func newResetSecondBackend(t *testing.T) *resetSecondBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &resetSecondBackend{ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				b.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		b.mu.Lock()
		for _, c := range b.conns {
			c.Close()
		}
		b.mu.Unlock()
		b.wg.Wait()
	})
	return b
}

func (b *resetSecondBackend) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for n := 1; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		b.calls.Add(1)
		if n > 1 {
			c.(*net.TCPConn).SetLinger(0) // close sends RST
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	}
}

// A call net/http deems safe to send again (an Idempotency-Key or
// X-Idempotency-Key header, a GET) is forwarded once. When the receiver's
// kept-alive connection failed after the call went out, net/http sent it
// again on a new connection, unseen: the receiver held a copy that the
// sender never sent and that listen's line, record and summary never
// showed (the sender got the second copy's 200). Now the forward fails
// as any other call's does, and the receiver gets each call once.
func TestForwardNotSentAgain(t *testing.T) {
	for _, tt := range []struct {
		name, method, header string
	}{
		{"plain POST", http.MethodPost, ""},
		{"Idempotency-Key", http.MethodPost, "Idempotency-Key"},
		{"X-Idempotency-Key", http.MethodPost, "X-Idempotency-Key"},
		{"GET", http.MethodGet, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			be := newResetSecondBackend(t)
			u, _ := url.Parse("http://" + be.ln.Addr().String() + "/hook")
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Capture: mem})
			var got []int
			for i := range 2 {
				req := httptest.NewRequest(tt.method, "/webhook?businessType="+ev, strings.NewReader(faultBody))
				req.Header.Set("Content-Type", "application/json")
				if tt.header != "" {
					req.Header.Set(tt.header, "key-"+string(rune('1'+i)))
				}
				w := httptest.NewRecorder()
				rcv.ServeHTTP(w, req)
				got = append(got, w.Code)
			}
			rcv.Close()
			if n := be.calls.Load(); n != 2 {
				t.Errorf("the receiver read %d calls, want 2: the sender made 2 and listen forwarded each once", n)
			}
			if got[0] != http.StatusOK || got[1] != http.StatusBadGateway {
				t.Errorf("the sender got %v, want [200 502]: the second call's connection was reset unanswered", got)
			}
			if f := mem.recs[1].Forward; f == nil || !strings.Contains(f.Error, "connection reset by peer") {
				t.Errorf("second forward recorded as %+v, want its error: the connection was reset", f)
			}
		})
	}
}
