package whsimtest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/checkout"
)

// deliver sends one call to h through the in-memory transport, as the
// battery does, and returns what the battery sees of it.
func deliver(t *testing.T, h http.Handler, timeout time.Duration) (attempt.Attempt, *panics) {
	t.Helper()
	mem := newInMemory(h)
	pn := mem.panics
	client := &http.Client{Transport: mem, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	target, _ := url.Parse("http://" + inMemoryHost + "/hooks?tenant=7")
	d := &attempt.Deliverer{Client: client, Target: target, KeepBody: true, Trace: true}
	res := d.Deliver(context.Background(), &attempt.Request{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte(`{"requestId":"r1"}`),
		Header: http.Header{"X-Tenant": {"7"}}})
	return res.Last(), pn
}

func TestInMemoryTransport(t *testing.T) {
	t.Parallel()
	unblock := make(chan struct{})
	t.Cleanup(func() { close(unblock) })
	for _, tt := range []struct {
		name string
		h    http.HandlerFunc
		want func(attempt.Attempt) bool
	}{
		{"the request as a server sees it", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.Method != http.MethodPost || r.RequestURI != "/hooks?tenant=7&businessType=CREATE_RECEIVABLE_DOC" || r.URL.Query().Get("tenant") != "7" ||
				r.Host != inMemoryHost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("X-Tenant") != "7" ||
				r.Header.Get("User-Agent") != "Go-http-client/1.1" || r.Header.Get("Content-Length") != "18" || r.ContentLength != 18 ||
				string(body) != `{"requestId":"r1"}` || r.RemoteAddr == "" {
				http.Error(w, "wrong request", http.StatusTeapot)
				return
			}
			w.Header().Set("X-Seen", "yes")
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(`{"ok":true}`))
		}, func(a attempt.Attempt) bool {
			return a.Status == 202 && a.StatusLine == "202 Accepted" && string(a.BodyPrefix) == `{"ok":true}` && a.Header.Get("X-Seen") == "yes"
		}},
		// A handler that logs or routes by the address it was reached on
		// finds one, as behind net/http's server.
		{"the local address is in the context", func(w http.ResponseWriter, r *http.Request) {
			addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
			if !ok || addr.String() != localAddr {
				http.Error(w, "no local address", http.StatusTeapot)
			}
		}, func(a attempt.Attempt) bool { return a.Status == 200 }},
		// A handler that reads its server's settings (a framework's
		// timeouts, a shutdown hook) finds a server, as behind net/http's:
		// asserted without a check, its absence panicked in memory only.
		{"the server is in the context", func(w http.ResponseWriter, r *http.Request) {
			srv := r.Context().Value(http.ServerContextKey).(*http.Server)
			if srv.Handler == nil {
				http.Error(w, "a server without the handler", http.StatusTeapot)
			}
		}, func(a attempt.Attempt) bool { return a.Status == 200 }},
		{"no WriteHeader is 200, a sniffed type", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("ok"))
		}, func(a attempt.Attempt) bool {
			return a.Status == 200 && a.Header.Get("Content-Type") == "text/plain; charset=utf-8"
		}},
		{"headers set after WriteHeader are not sent", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusConflict)
			w.Header().Set("X-Late", "1")
		}, func(a attempt.Attempt) bool { return a.Status == 409 && a.Header.Get("X-Late") == "" }},
		{"an informational status comes before the answer", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusNoContent)
		}, func(a attempt.Attempt) bool { return a.Status == 204 }},
		{"an unknown status keeps its number", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(299)
		}, func(a attempt.Attempt) bool { return a.Status == 299 && a.StatusLine == "299 status code 299" }},
		{"a redirect is the answer", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, func(a attempt.Attempt) bool { return a.Status == 307 && a.Location == "/elsewhere" }},
		{"an answer over the read limit", func(w http.ResponseWriter, r *http.Request) {
			chunk := []byte(strings.Repeat("x", 64<<10))
			for range 40 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, func(a attempt.Attempt) bool { return a.Status == 200 && a.Oversized }},
		{"a handler past the time limit is a timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done(): // the call ended: the handler's context says so
			case <-unblock:
			}
		}, func(a attempt.Attempt) bool { return a.Status == 0 && a.Kind == attempt.KindTimeout }},
		// The head a handler flushed reached the sender before the time
		// limit: the call was answered, its body unfinished (timeout), as
		// over TCP; no call without an answer (two of which in a row
		// stop a run: "the receiver stopped answering").
		{"a flushed head, then a timeout, is an answer unfinished", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte("working"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-unblock:
			}
		}, func(a attempt.Attempt) bool {
			return a.Status == 202 && a.BodyKind == attempt.KindTimeout && a.Unfinished() == "answer body not finished in time" && string(a.BodyPrefix) == "working"
		}},
		// Its declared length not reached when the limit passes: still a
		// body not finished in time, not one cut short.
		{"a flushed head with a Content-Length, then a timeout, is an answer unfinished", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte("working"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-unblock:
			}
		}, func(a attempt.Attempt) bool {
			return a.Status == 200 && a.BodyKind == attempt.KindTimeout && !a.Truncated && string(a.BodyPrefix) == "working"
		}},
		// A 204 has no body to wait for: the flushed head is all of it.
		{"a flushed 204, then a timeout, is a whole answer", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-unblock:
			}
		}, func(a attempt.Attempt) bool { return a.Status == 204 && a.Unfinished() == "" && a.Kind == "" }},
		{"a panic is a connection closed", func(w http.ResponseWriter, r *http.Request) {
			panic("boom")
		}, func(a attempt.Attempt) bool { return a.Status == 0 && a.Kind == attempt.KindClosed }},
		{"ErrAbortHandler too", func(w http.ResponseWriter, r *http.Request) {
			panic(http.ErrAbortHandler)
		}, func(a attempt.Attempt) bool { return a.Status == 0 && a.Kind == attempt.KindClosed }},
		// A handler behind net/http's server may bound its own reads and
		// writes; one that answers 500 when it cannot must not fail in
		// memory where it passes over TCP.
		{"a handler's deadlines and full duplex are taken", func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			for _, err := range []error{rc.SetReadDeadline(time.Now().Add(time.Minute)), rc.SetWriteDeadline(time.Now().Add(time.Minute)), rc.EnableFullDuplex()} {
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
			w.WriteHeader(http.StatusNoContent)
		}, func(a attempt.Attempt) bool { return a.Status == 204 }},
		// A flush sends the status line, 200 unless one was written: a
		// handler that flushes early (to keep a sender from timing out)
		// and then fails has already acknowledged the call, as over TCP.
		{"a flush sends the status, and a later one is too late", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Early", "1")
			w.(http.Flusher).Flush()
			w.Header().Set("X-Late", "1")
			http.Error(w, "failed", http.StatusInternalServerError)
		}, func(a attempt.Attempt) bool {
			return a.Status == 200 && string(a.BodyPrefix) == "failed\n" && a.Header.Get("X-Early") == "1" && a.Header.Get("X-Late") == ""
		}},
		// gin's Context.Writer.CloseNotify asserts http.CloseNotifier on the
		// writer it wraps, without checking: behind net/http's server it
		// holds, and a handler that watches for the sender going away must
		// not panic (a 500 from gin's Recovery) in memory only.
		{"a framework's CloseNotify is served", func(w http.ResponseWriter, r *http.Request) {
			gone := w.(http.CloseNotifier).CloseNotify() //lint:ignore SA1019 gin's Context.Writer still asserts it (above)
			select {
			case <-gone:
				http.Error(w, "gone before the answer", http.StatusTeapot)
			default:
				w.WriteHeader(http.StatusNoContent)
			}
		}, func(a attempt.Attempt) bool { return a.Status == 204 }},
		// As net/http's server closes the connection of a handler whose
		// goroutine ended: the call is not held until its time limit.
		{"a handler that ends its goroutine (t.Fatal in a handler) is a connection closed", func(w http.ResponseWriter, r *http.Request) {
			runtime.Goexit()
		}, func(a attempt.Attempt) bool { return a.Status == 0 && a.Kind == attempt.KindClosed }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			timeout := 10 * time.Second
			if strings.Contains(tt.name, "timeout") {
				timeout = 50 * time.Millisecond
			}
			a, pn := deliver(t, tt.h, timeout)
			if !tt.want(a) {
				t.Errorf("got %+v", a)
			}
			n, _, first := pn.said()
			if wantPanic := tt.name == "a panic is a connection closed"; wantPanic != (n == 1) || wantPanic && !strings.Contains(first, "boom") {
				t.Errorf("panics %d %q", n, first)
			}
			n, _, first = pn.exited()
			if wantExit := strings.Contains(tt.name, "ends its goroutine"); wantExit != (n == 1) || wantExit && !strings.Contains(first, "runtime.Goexit") {
				t.Errorf("goroutines ended %d %q", n, first)
			}
		})
	}
}

// The handler's context is its own: it ends when the handler returns,
// and carries none of the sender's values.
func TestHandlerContext(t *testing.T) {
	t.Parallel()
	var ctx context.Context
	a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() }), time.Second)
	if a.Status != 200 {
		t.Fatalf("got %+v", a)
	}
	<-ctx.Done() // ended when the handler returned; a test that waits here forever fails by its timeout
}

// CloseNotify tells a handler still running that the sender has gone (its
// time limit passed), as net/http's server tells it when the connection
// closes.
func TestCloseNotifyTellsTheSenderWentAway(t *testing.T) {
	t.Parallel()
	told := make(chan bool, 1)
	a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		told <- <-w.(http.CloseNotifier).CloseNotify() //lint:ignore SA1019 what a framework's handler asserts, tested as such
	}), 50*time.Millisecond)
	if a.Kind != attempt.KindTimeout {
		t.Fatalf("got %+v, want a timeout", a)
	}
	if !<-told { // a test whose handler is never told fails by its timeout
		t.Error("CloseNotify sent false")
	}
}

// The body is the handler's until it returns: net/http's server then
// closes it, and a receiver that acknowledges at once and reads the body
// in a goroutine of its own loses every document. In memory it must fail
// as it does behind a server, not pass.
func TestBodyClosedWhenTheHandlerReturns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// read reads the body as the handler leaves it.
		read func(r *http.Request) error
	}{
		{"read after the handler returned", func(r *http.Request) error { return nil }},
		{"read after the handler closed it", func(r *http.Request) error { return r.Body.Close() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var req *http.Request
			a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				req = r
				if err := tt.read(r); err != nil {
					t.Error(err)
				}
				if strings.Contains(tt.name, "closed") {
					if _, err := io.ReadAll(r.Body); !errors.Is(err, http.ErrBodyReadAfterClose) {
						t.Errorf("read after Close: %v, want %v", err, http.ErrBodyReadAfterClose)
					}
				}
				w.WriteHeader(http.StatusAccepted)
			}), 10*time.Second)
			if a.Status != http.StatusAccepted {
				t.Fatalf("got %+v", a)
			}
			// The answer is taken when the handler returns: it has.
			if b, err := io.ReadAll(req.Body); !errors.Is(err, http.ErrBodyReadAfterClose) {
				t.Errorf("read after the handler returned: %q, %v; want %v, as behind net/http's server", b, err, http.ErrBodyReadAfterClose)
			}
		})
	}
}

// A 204 or 304 answer has no body: net/http's server refuses a handler's
// writes after one (http.ErrBodyNotAllowed) and the sender reads none, so
// in memory the handler sees that error too, and a failing case's reason
// quotes no body the sender never got.
func TestNoBodyAfterAStatusWithout(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNoContent, http.StatusNotModified} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			var err error
			a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				_, err = w.Write([]byte(`{"ok":true}`))
			}), 10*time.Second)
			if a.Status != status || len(a.BodyPrefix) != 0 || a.Header.Get("Content-Type") != "" {
				t.Errorf("got %+v, want %d with no body", a, status)
			}
			if !errors.Is(err, http.ErrBodyNotAllowed) {
				t.Errorf("the handler's Write got %v, want %v as from net/http's server", err, http.ErrBodyNotAllowed)
			}
		})
	}
}

// A flush sends the answer's head, and net/http's server then drops what
// is left of an HTTP/1.1 request's body (a client may send it all before
// it reads the answer): a handler that flushes before it reads the body
// finds it gone, unless it asked for full duplex first.
func TestBodyAfterAFlush(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		duplex bool
		want   error
	}{
		{"gone", false, http.ErrBodyReadAfterClose},
		{"kept in full duplex", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body []byte
			var err error
			a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rc := http.NewResponseController(w)
				if tt.duplex {
					if err := rc.EnableFullDuplex(); err != nil {
						t.Error(err)
					}
				}
				if err := rc.Flush(); err != nil {
					t.Error(err)
				}
				body, err = io.ReadAll(r.Body)
			}), 10*time.Second)
			if a.Status != http.StatusOK {
				t.Fatalf("got %+v", a)
			}
			if !errors.Is(err, tt.want) || tt.want == nil && string(body) != `{"requestId":"r1"}` {
				t.Errorf("read after the flush: %q, %v; want %v, as behind net/http's server", body, err, tt.want)
			}
		})
	}
}

// A Content-Length the handler sets frames the answer, as net/http's
// server frames it: a write past it is refused (http.ErrContentLength),
// and a body that ends short of it reaches the sender cut short, which
// fails the delivery, where in memory it had passed whole.
func TestDeclaredContentLength(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		declared string
		writes   []string
		// wantErr is what the last write got.
		wantErr error
		want    func(attempt.Attempt) bool
	}{
		{"short of it", "100", []string{"ok"}, nil, func(a attempt.Attempt) bool {
			return a.Status == 200 && a.Truncated && a.Unfinished() == "answer cut short"
		}},
		{"past it", "2", []string{"ok", "more"}, http.ErrContentLength, func(a attempt.Attempt) bool {
			return a.Status == 200 && a.Unfinished() == "" && string(a.BodyPrefix) == "ok"
		}},
		{"a write across it is refused whole", "3", []string{"ok", "more"}, http.ErrContentLength, func(a attempt.Attempt) bool {
			return a.Status == 200 && a.Truncated && string(a.BodyPrefix) == "ok"
		}},
		{"not a number: no framing", "lots", []string{"ok"}, nil, func(a attempt.Attempt) bool {
			return a.Status == 200 && a.Unfinished() == "" && string(a.BodyPrefix) == "ok"
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var err error
			a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", tt.declared)
				for _, s := range tt.writes {
					_, err = w.Write([]byte(s))
				}
			}), 10*time.Second)
			if !tt.want(a) {
				t.Errorf("got %+v", a)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("the last write got %v, want %v as from net/http's server", err, tt.wantErr)
			}
		})
	}
}

// A failing case says what whsim check's output says of it: the reason,
// then the receiver's answer in brackets.
func TestFailureSaysWhatTheCLISays(t *testing.T) {
	t.Parallel()
	long := []byte(strings.Repeat("é", attempt.MaxBodyPrefix/2))
	for _, res := range []check.Result{
		{Case: &check.Case{Check: "duplicates", Name: "x"}, Verdict: check.Fail, Reason: "got 409", Answer: &check.Reply{Status: "409 Conflict", Body: []byte(" dup\x1b[31m\n")}},
		{Case: &check.Case{Check: "duplicates", Name: "x"}, Verdict: check.Fail, Reason: "got 500", Answer: &check.Reply{Status: "500 Internal Server Error", Body: long, Cut: true}},
		{Case: &check.Case{Check: "load", Name: "x"}, Verdict: check.Fail, Reason: "3 timeouts\x07"},
	} {
		want := checkout.CheckCase{CaseReport: &check.CaseReport{Result: res}}.JUnit().Failure
		if got := said(res); got != want {
			t.Errorf("said %q, whsim check says %q", got, want)
		}
	}
}

// TestInMemoryAnswerOfAHeldCaller: a handler that returned is the call's
// answer, however long a loaded machine held the caller past the time
// limit before it looked (both ready, the wait picked the timeout at
// random: half such calls were timeouts of handlers that had answered).
func TestInMemoryAnswerOfAHeldCaller(t *testing.T) {
	t.Parallel()
	for range 20 {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
		if a := heldCall(t, h); a.Status != http.StatusAccepted {
			t.Fatalf("got %+v, want the handler's 202", a)
		}
	}
}

// heldCall is one call to h through the in-memory transport, with a 20ms
// time limit, whose caller the scheduler holds until the time limit has
// passed and the handler has returned (events, not sleeps). It runs in a
// testing/synctest bubble, whose clock moves only when every goroutine of
// the call waits: a handler that answers at once has answered before the
// time limit, however loaded the machine (on the real clock, a handler
// not scheduled within 20ms under go test -race and two CPU hogs returned
// after it, a timeout, and TestInMemoryAnswerOfAHeldCaller failed).
func heldCall(t *testing.T, h http.Handler) attempt.Attempt {
	t.Helper()
	var a attempt.Attempt
	synctest.Test(t, func(t *testing.T) {
		tr := newInMemory(h)
		tr.held = func(ctx context.Context, returned func() bool) {
			<-ctx.Done()
			for !returned() {
				runtime.Gosched()
			}
		}
		target, _ := url.Parse("http://" + inMemoryHost + "/hooks")
		d := &attempt.Deliverer{Client: &http.Client{Timeout: 20 * time.Millisecond, Transport: tr}, Target: target}
		a = d.Deliver(context.Background(), &attempt.Request{Body: []byte(`{}`)}).Last()
	})
	return a
}

// TestInMemoryTimeoutOfAHeldCaller: a handler that returned only after
// the time limit (when its context ended) is a timeout, however long a
// loaded machine held the caller before it looked. Both ready, the wait
// picked the handler's end at random and read it as an answer, 200 with
// no body: WithTimeout(time.Millisecond) against a handler that never
// answers went past the first call on a machine with two CPU hogs.
func TestInMemoryTimeoutOfAHeldCaller(t *testing.T) {
	t.Parallel()
	for range 20 {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		if a := heldCall(t, h); a.Status != 0 || a.Kind != attempt.KindTimeout {
			t.Fatalf("got %+v, want a timeout: the handler returned only after the time limit, answering nothing", a)
		}
	}
}

// A handler's writer kept past its return cannot take the connection
// over: net/http's server panics at such a Hijack (the connection is
// its again); in memory it is an error, and no pipe is left that no
// sender reads.
func TestHijackAfterTheHandlerReturned(t *testing.T) {
	t.Parallel()
	var kept http.ResponseWriter
	a, _ := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept = w
		w.WriteHeader(http.StatusAccepted)
	}), 10*time.Second)
	if a.Status != http.StatusAccepted {
		t.Fatalf("got %+v", a)
	}
	if conn, _, err := kept.(http.Hijacker).Hijack(); !errors.Is(err, errHijackAfterReturn) {
		t.Errorf("Hijack after the handler returned: %v, %v; want %v", conn, err, errHijackAfterReturn)
	}
}

// A ResponseWriter may not be used after ServeHTTP has returned (its
// doc): behind net/http's server such a write lands in a buffer the
// server has handed on, a race that garbles the next answer on the
// connection, so whsim check fails such a receiver at random. In memory
// the write reaches no one, and the run says where it was made, once
// per call: never a silent pass.
func TestUseOfTheWriterAfterTheHandlerReturned(t *testing.T) {
	t.Parallel()
	var kept http.ResponseWriter
	a, pn := deliver(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept = w
		w.WriteHeader(http.StatusAccepted)
	}), 10*time.Second)
	if a.Status != http.StatusAccepted {
		t.Fatalf("got %+v", a)
	}
	if _, err := kept.Write([]byte("late")); !errors.Is(err, errUsedAfterReturn) {
		t.Errorf("Write after the handler returned: %v, want %v", err, errUsedAfterReturn)
	}
	kept.WriteHeader(http.StatusInternalServerError)
	kept.(http.Flusher).Flush()
	if n, first := pn.usedLate(); n != 1 || !strings.Contains(first, "TestUseOfTheWriterAfterTheHandlerReturned") {
		t.Errorf("said %d call(s) used late, the first at %q; want 1, at this test", n, first)
	}
}
