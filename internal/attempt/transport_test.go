package attempt

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// newTestClient is NewClient as the CLI makes it: WHSIM_TRANSPORT=net/http
// keeps every call off the fast path, and goroutines a run's off the
// event loops, so that CI runs these tests every way.
func newTestClient(o ClientOptions) (*http.Client, error) {
	o.NetHTTP = o.NetHTTP || os.Getenv(TransportEnv) == TransportNetHTTP
	o.Goroutines = os.Getenv(TransportEnv) == TransportGoroutines
	return NewClient(o)
}

// fastPathOn says whether a worker's calls take the fast path in this run
// of the tests (not with WHSIM_TRANSPORT=net/http).
func fastPathOn() bool { return os.Getenv(TransportEnv) != TransportNetHTTP }

// A delivery path answers only what the receiver framed as the answer to
// each call, on net/http's transport and on the fast path alike: a
// connection the receiver closed after its answer is found closed before
// the next call is written (no failure blamed on the receiver, and no call
// sent twice); bytes after an answer, or in the body of a 204 or 304, end
// the connection and are never the next call's answer; a status line must
// be HTTP/1.x, three digits from 100 to 999 (RFC 9112, 4; 600 to 999, no
// status HTTP defines, a client takes as a 5xx: RFC 9110, 15), then a space
// or the line's end.
func TestTransportTakesOnlyFramedAnswers(t *testing.T) {
	const lie = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" // bytes that would pass for an answer
	tests := []struct {
		name, answer string
		hangUp       bool
		status       int  // every call's; 0: none answered
		malformed    bool // no call answered, for a status line that is no status
	}{
		{"closed after every answer", "HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\noops", true, 500, false},
		{"closed after every 200", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true, 200, false},
		{"bytes after the answer", "HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\noops" + lie, false, 500, false},
		{"204 with a body", "HTTP/1.1 204 No Content\r\n\r\n" + lie, false, 204, false},
		{"304 with a body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 38\r\n\r\n" + lie, false, 304, false},
		{"status 200X", "HTTP/1.1 200X OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"status 2004", "HTTP/1.1 2004 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"status 20", "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"version 1.x", "HTTP/1.x 200 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"status +20", "HTTP/1.1 +20 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"status 099", "HTTP/1.1 099 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"status 600", "HTTP/1.1 600 OK\r\nContent-Length: 0\r\n\r\n", false, 600, false},
		{"status 999", "HTTP/1.1 999 OK\r\nContent-Length: 0\r\n\r\n", false, 999, false},
		{"version 2.0", "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"version 0.9", "HTTP/0.9 200 OK\r\nContent-Length: 0\r\n\r\n", false, 0, true},
		{"two spaces before the status", "HTTP/1.1  200 OK\r\nContent-Length: 0\r\n\r\n", false, 200, false},
		// Framed two ways: read as chunked, as RFC 9112 (6.3) and net/http
		// read it; what the Content-Length would have covered past the
		// chunks is bytes after the answer, which end the connection.
		{"Content-Length and chunked", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, 200, false},
		{"Content-Length past the chunks", "HTTP/1.1 500 Oops\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n" + lie, false, 500, false},
	}
	const calls = 6
	for _, p := range paths {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
					return tt.answer, tt.hangUp, false, false
				})
				c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep}
				var got []Attempt
				next := func(r *Result) {
					got = append(got, r.Last())
					if tt.hangUp && r.Last().Status != 0 {
						srv.awaitClosed(t) // the next call starts once the receiver has closed
					}
				}
				if p.worker {
					asWorker(d, templates("A", 1), calls, next)
				} else {
					for range calls {
						next(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
					}
				}
				for i, a := range got {
					switch {
					case tt.malformed && (a.Status != 0 || a.Kind != KindMalformed):
						t.Errorf("call %d: %s, want a malformed answer from a malformed status line", i+1, brief(a))
					case !tt.malformed && (a.Status != tt.status || a.Kind != ""):
						t.Errorf("call %d: %s, want %d", i+1, brief(a), tt.status)
					}
				}
				if n := srv.got.Load(); n != calls {
					t.Errorf("the receiver read %d calls, want %d (one each, none sent twice)", n, calls)
				}
			})
		}
	}
}

// statusOf takes a status line only as HTTP/1.x, three digits from 100 to
// 999, then a space or the line's end.
func TestStatusOf(t *testing.T) {
	for line, want := range map[string]int{
		"HTTP/1.1 200 OK\r\n": 200, "HTTP/1.1 204\r\n": 204, "HTTP/1.0 503 \r\n": 503, "HTTP/1.1 404\n": 404,
		"HTTP/1.1 200X OK\r\n": 0, "HTTP/1.1 2004 OK\r\n": 0, "HTTP/1.1 20 OK\r\n": 0, "HTTP/1.x 200 OK\r\n": 0,
		"HTTP/2 200 OK\r\n": 0, "HTTP/1.1 +20 OK\r\n": 0, "HTTP/1.1 099 OK\r\n": 0, "HTTP/1.1 200\r": 0, "": 0,
		"HTTP/1.1  200 OK\r\n": 200, "HTTP/1.1   204\r\n": 204, "HTTP/1.1  20 OK\r\n": 0, "HTTP/1.1 \t200 OK\r\n": 0, "HTTP/1.1   \r\n": 0,
		"HTTP/2.0 200 OK\r\n": 0, "HTTP/0.9 200 OK\r\n": 0,
		"HTTP/1.1 599 Odd\r\n": 599, "HTTP/1.1 600 OK\r\n": 600, "HTTP/1.1 999\r\n": 999,
	} {
		got, ok := statusOf([]byte(line))
		if got != want || ok != (want != 0) {
			t.Errorf("%q: %d %v, want %d", line, got, ok, want)
		}
	}
}

// A 101 Switching Protocols that no call asked for is the receiver's
// answer, its status counted (a failure, not 2xx), on every path alike:
// what follows it is no HTTP, so nothing of it is read as a body (net/http
// hands the connection over as one, which no time limit bounds: the
// attempt waited as long as the receiver held the connection open) and
// the connection carries no other call (the next goes on a new one).
func TestSwitchingProtocolsEndsTheAttemptAndTheConnection(t *testing.T) {
	const switched = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			// The receiver holds each connection open after its 101, as a
			// WebSocket server does, reading no more HTTP from it.
			srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) { return switched, false, false, true })
			c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep}
			var got []Attempt
			next := func(r *Result) {
				if r.OK {
					t.Errorf("call %d: ok, want a failure", len(got)+1)
				}
				got = append(got, r.Last())
			}
			if p.worker {
				asWorker(d, templates("A", 1), 2, next)
			} else {
				for range 2 {
					next(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
				}
			}
			for i, a := range got {
				if a.Status != http.StatusSwitchingProtocols || a.Kind != "" || a.Unfinished() != "" {
					t.Errorf("call %d: %s, want 101", i+1, brief(a))
				}
			}
			if n := srv.got.Load(); n != 2 {
				t.Errorf("the receiver read %d calls, want 2 (each on a connection of its own)", n)
			}
		})
	}
}

// earlyServer is a receiver that reads a call's head and answers it
// before reading its body (as one that refuses a body too large does),
// then closes the connection without reading the rest (a reset, since the
// rest is unread) or holds it open unread until the test ends. Its first
// call on each connection, with a small body, it reads whole and answers
// 200, so that a lane's next call is the event loop's.
func earlyServer(t *testing.T, answer string, hold bool) *url.URL {
	t.Helper()
	stop := make(chan struct{})
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if req.ContentLength < 1<<20 {
				io.Copy(io.Discard, req.Body)
				io.WriteString(c, ok200)
				continue
			}
			io.WriteString(c, answer)
			if hold {
				<-stop
			}
			return
		}
	})
	t.Cleanup(func() { close(stop) }) // before Serve's, which waits for the handlers
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	return u
}

// earlyAnswers are receivers that answer a large call before they read
// its body, and what its answer is.
var earlyAnswers = []struct {
	name, answer string
	hold         bool
	status       int
}{
	{"413 then reset", tooLarge, false, 413},
	{"413 then held", tooLarge, true, 413},
	{"200 then held", ok200, true, 200},
}

// earlyLimit is the time limit of an earlyAnswers case's calls. A 200
// whose receiver then neither reads the body nor closes ends only at the
// limit (its write never does): a short one keeps the suite quick, and
// is still far more than the small first call and the answer already in
// the socket need on a loaded machine.
func earlyLimit(status int, hold bool) time.Duration {
	if hold && status == http.StatusOK {
		return 10 * time.Second
	}
	return time.Minute
}

const tooLarge = "HTTP/1.1 413 Too Large\r\nContent-Length: 3\r\n\r\nbig"

// earlyPool is a small call, then one far past socket buffers: on a
// lane, the second is the loop's, on the connection the first made.
func earlyPool() [][]Template {
	big := []byte(`{"x":"` + strings.Repeat("x", 64<<20) + `"}`)
	return [][]Template{{{Event: "A", Query: "businessType=A", Body: []byte(`{}`)}}, {{Event: "A", Query: "businessType=A", Body: big}}}
}

// An answer that comes before the call is written whole (a receiver
// refusing a body it will not read) is the call's answer, as net/http and
// curl read it: the fast path waited to write the rest and said the
// receiver never answered in time, or that it reset the connection. The
// connection carries no other call. (The loops: TestLanesAnswerBeforeTheCallIsWritten.)
func TestAnswerBeforeTheCallIsWritten(t *testing.T) {
	pool := earlyPool()
	for _, tt := range earlyAnswers {
		// Through the socket's own calls (sockIO, on Linux), and through
		// net.Conn's Read and Write (netIO: other systems, and a
		// connection that is no socket).
		for _, conn := range []string{"socket", "net.Conn"} {
			t.Run(tt.name+"/"+conn, func(t *testing.T) {
				t.Parallel()
				c, err := newTestClient(ClientOptions{Timeout: earlyLimit(tt.status, tt.hold), Concurrency: 1})
				if err != nil {
					t.Fatal(err)
				}
				if dt, ok := c.Transport.(directTransport); ok && conn == "net.Conn" {
					dial := dt.DialContext
					dt.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
						c, err := dial(ctx, network, addr)
						if err != nil {
							return nil, err
						}
						return struct{ net.Conn }{unwrap(c)}, nil // no syscall.Conn
					}
				}
				d := &Deliverer{Client: c, Target: earlyServer(t, tt.answer, tt.hold)}
				var got []Attempt
				asWorker(d, pool, 2, func(r *Result) { got = append(got, r.Last()) })
				a := got[1]
				if !fastPathOn() && conn == "net.Conn" && !tt.hold && a.Status == 0 && a.Kind == KindReset {
					// net/http's transport races its write's error against
					// an answer that came before the call was written whole:
					// after a reset it may report the write's, to any Go
					// client. A watched connection takes the write as done
					// once the answer came (watchConn.writeCut), so that
					// net/http reads it; the dial here drops the watch, and
					// a reset is all the test can ask of net/http without
					// it: never a success, a timeout or a wrong status.
					return
				}
				if a.Status != tt.status || a.Kind != "" {
					t.Errorf("the large call: %s, want %d", brief(a), tt.status)
				}
				// A 200 whose receiver then neither reads the body nor
				// closes: its write ends at the time limit, said in the
				// same words on every path. net/http's, which holds such
				// an answer until the write's end (watchConn.holdAnswer),
				// said "timeout" alone. (Its connection unwatched, as
				// the dial here makes it, net/http cuts the write 50ms
				// after the answer and whsim cannot tell: no client of
				// whsim's has such a connection.)
				watched := fastPathOn() || conn == "socket"
				if want := writeCutWords(len(pool[1][0].Body), os.ErrDeadlineExceeded); watched && tt.hold && tt.status == http.StatusOK && a.BodyUnsent != want {
					t.Errorf("the large call: body unsent %q, want %q", a.BodyUnsent, want)
				}
			})
		}
	}
}
