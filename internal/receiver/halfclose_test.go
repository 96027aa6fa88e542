package receiver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A sender that closes its write side once its request is whole
// (shutdown SHUT_WR: nc -N, some HTTP/1.0 clients, Node's req.end() with
// allowHalfOpen) waits for its answer and reads it. net/http took its FIN
// for a sender that hung up and ended the call's context: the forward was
// cut short (the sender got listen's 502, the receiver maybe nothing),
// the delay ended early, and the call was flagged http-sender-gone "did
// not wait for the 201" of a sender that got it. A sender that closed its
// socket whole sends the same FIN, and is still flagged: its socket
// resets the connection when the answer reaches it. One that reset the
// connection (RST) is flagged, as before. (Which it is, an interim
// "100 Continue" shows: a socket closed whole resets the connection when
// it comes, and the call ends then, as before.) Events, not a clock: the
// receiver behind the forward, or the delay, is let go once listen's
// connection has found the FIN (the readShut seam), or when the forward
// is canceled (which is the defect), and the reset's case is let go by
// the reset's cancellation.
func TestSenderHalfCloseIsNotSenderGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("off Linux the sender's TCP is not asked (sendershut_other.go): each such call is flagged as not known")
	}
	const call = "POST /hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	// An HTTP/1.0 sender is sent no interim answer: which it is, its TCP
	// says once the answer reaches it.
	call10 := strings.Replace(call, "HTTP/1.1", "HTTP/1.0", 1)
	for _, tt := range []struct {
		name    string
		http10  bool
		delay   bool // a delay, not a forward
		end     string
		status  int  // what the sender reads, 0 for nothing
		gone    bool // flagged http-sender-gone
		fwdSent int  // the forward's status recorded, 0 for none
	}{
		{"half-close, forward", false, false, "half-close", 201, false, 201},
		{"half-close, delay", false, true, "half-close", 200, false, 0},
		{"close, forward", false, false, "close", 0, true, 0},
		{"close, delay", false, true, "close", 0, true, 0},
		{"reset, forward", false, false, "reset", 0, true, 0},
		{"HTTP/1.0 half-close, forward", true, false, "half-close", 201, false, 201},
		{"HTTP/1.0 close, forward", true, false, "close", 0, true, 201},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sawShut := make(chan struct{}, 1)
			forwarded := make(chan struct{}, 1)
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				io.Copy(io.Discard, req.Body)
				forwarded <- struct{}{}
				select {
				case <-sawShut:
				case <-req.Context().Done():
					return // listen canceled the forward
				}
				w.WriteHeader(http.StatusCreated)
			}))
			defer backend.Close()
			cfg := Config{Checker: fakeChecker{}}
			if tt.delay {
				cfg.Delay = time.Hour
			} else {
				cfg.ForwardTo, _ = url.Parse(backend.URL)
			}
			rec, obs := &memRecorder{}, &observed{}
			seen := make(chan struct{}, 1)
			cfg.Capture, cfg.Observe = rec, func(c *Call) { obs.observe(c); seen <- struct{}{} }
			rcv := New(cfg)
			s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			s.ln.(*watchListener).readShut = func() {
				if tt.delay {
					rcv.EndWaits()
				} else {
					sawShut <- struct{}{}
				}
			}
			c, cancel, served := serveAndDial(t, s)
			req := call
			if tt.http10 {
				req = call10
			}
			if _, err := io.WriteString(c, req); err != nil {
				t.Fatal(err)
			}
			got := 0
			switch tt.end {
			case "half-close":
				c.(*net.TCPConn).CloseWrite()
				br := bufio.NewReader(c)
				for got == 0 || got == http.StatusContinue { // an interim 100 first, as a client reads past it
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						break
					}
					got = resp.StatusCode
					io.Copy(io.Discard, resp.Body)
				}
			case "close":
				c.Close()
			case "reset":
				<-forwarded // the forward under way: its cancel is the reset's
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}
			<-seen // the call observed before the stop
			cancel()
			<-served
			rcv.Close()
			if got != tt.status {
				t.Errorf("the sender read %d, want %d", got, tt.status)
			}
			if len(obs.calls) != 1 || len(rec.recs) != 1 {
				t.Fatalf("%d calls, %d records; want 1 each", len(obs.calls), len(rec.recs))
			}
			cl := obs.calls[0]
			if hasRule(cl, ruleSenderGone) != tt.gone {
				t.Errorf("findings %+v, want %s: %v", cl.Findings, ruleSenderGone, tt.gone)
			}
			fwd := 0
			if f := rec.recs[0].Forward; f != nil {
				fwd = f.Status
			}
			if fwd != tt.fwdSent {
				t.Errorf("forward recorded with status %d (%+v), want %d", fwd, rec.recs[0].Forward, tt.fwdSent)
			}
			for _, f := range cl.Findings {
				if f.Rule == ruleSenderGone && !strings.Contains(f.Message, "did not wait") {
					t.Errorf("%s says %q", f.Rule, f.Message)
				}
			}
		})
	}
}

// A listen that holds no call (no delay, no forward) sends a sender that
// half-closed no interim answer: its answer alone, as it came before. The
// record's write waits until the connection has found the FIN, so that
// the answer comes after it.
func TestHalfCloseWithoutHoldGetsTheAnswerAlone(t *testing.T) {
	t.Parallel()
	const call = "POST /hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	sawShut := make(chan struct{})
	rec, obs := &hookRecorder{hook: func() { <-sawShut }}, &observed{}
	rcv := New(Config{Capture: rec, Checker: fakeChecker{}, Observe: obs.observe})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	s.ln.(*watchListener).readShut = func() { close(sawShut) }
	c, cancel, served := serveAndDial(t, s)
	io.WriteString(c, call)
	c.(*net.TCPConn).CloseWrite()
	answer, _ := io.ReadAll(c)
	cancel()
	<-served
	rcv.Close()
	if !strings.HasPrefix(string(answer), "HTTP/1.1 200 OK\r\n") {
		t.Errorf("answered %q, want the 200 alone", answer)
	}
	if len(obs.calls) != 1 || hasRule(obs.calls[0], ruleSenderGone) {
		t.Errorf("calls %+v, want one, not flagged", obs.calls)
	}
}

// serveAndDial serves s until cancel and dials it; served says how Serve
// ended. The connection's read deadline is a guard, never reached: the
// tests wait on events.
func serveAndDial(t *testing.T, s *server) (c net.Conn, cancel context.CancelFunc, served <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(time.Minute))
	return c, cancel, done
}
