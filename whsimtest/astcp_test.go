package whsimtest

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// seen is what a call came to on both sides of it: the answer the sender
// read, and what the handler itself met.
type seen struct {
	Status                                        int
	Kind, ContentLength, ContentType, Body, Unfin string
	Handler                                       string
}

// deliverOverTCP sends the call deliver sends to h served by net/http's
// server on a loopback port, through whsim check's client.
func deliverOverTCP(t *testing.T, h http.Handler, timeout time.Duration) attempt.Attempt {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the superfluous WriteHeader it logs is the row's point
	srv.Start()
	t.Cleanup(srv.Close)
	client, err := attempt.NewClient(attempt.ClientOptions{Timeout: timeout, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	target, _ := url.Parse(srv.URL + "/hooks?tenant=7")
	d := &attempt.Deliverer{Client: client, Target: target, KeepBody: true, Trace: true}
	res := d.Deliver(context.Background(), &attempt.Request{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte(`{"requestId":"r1"}`),
		Header: http.Header{"X-Tenant": {"7"}}})
	return res.Last()
}

// A handler meets in memory what it meets behind net/http's server, and
// its sender reads the same answer: each handler here is called both
// ways and what the two calls came to compared. net/http's server holds
// the first 2 KB of an answer's body, then sends the head (the status
// fixed, the request's body dropped unless full duplex, the body
// chunked), as a Flush does.
func TestInMemoryAsOverTCP(t *testing.T) {
	t.Parallel()
	over := func(n int) []byte { return []byte(strings.Repeat("x", n)) }
	for _, tt := range []struct {
		name    string
		timeout time.Duration // 0: 10s
		// h serves the call and says what it met.
		h func(w http.ResponseWriter, r *http.Request) string
	}{
		{"2 KB written, then the body read", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(2048))
			b, err := io.ReadAll(r.Body)
			return fmt.Sprintf("read %d bytes, %v", len(b), err)
		}},
		{"over 2 KB written, then the body read", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(2048))
			_, _ = w.Write(over(1))
			b, err := io.ReadAll(r.Body)
			return fmt.Sprintf("read %d bytes, %v", len(b), err)
		}},
		{"over 2 KB in one write, then the body read in full duplex", 0, func(w http.ResponseWriter, r *http.Request) string {
			_ = http.NewResponseController(w).EnableFullDuplex()
			_, _ = w.Write(over(3000))
			b, err := io.ReadAll(r.Body)
			return fmt.Sprintf("read %d bytes, %v", len(b), err)
		}},
		{"over 2 KB with its length declared", 0, func(w http.ResponseWriter, r *http.Request) string {
			w.Header().Set("Content-Length", "3000")
			_, err := w.Write(over(3000))
			return fmt.Sprint(err)
		}},
		{"over 2 KB, then a header and a status too late", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(3000))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			return ""
		}},
		{"a flush before any write sniffs no type", 0, func(w http.ResponseWriter, r *http.Request) string {
			w.(http.Flusher).Flush()
			_, err := w.Write([]byte("<html>accepted</html>"))
			return fmt.Sprint(err)
		}},
		{"a flush after a short write sniffs that", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write([]byte("{"))
			w.(http.Flusher).Flush()
			_, err := w.Write([]byte(`"ok":true}`))
			return fmt.Sprint(err)
		}},
		// The head written stays in the server's 4 KB buffer on the
		// connection till that fills: the sender has not got it.
		{"over 2 KB, then past the time limit, is no answer", 300 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(3000))
			<-r.Context().Done() // the sender gave up: over TCP, the server sees its connection close
			return ""
		}},
		// (A time limit long enough for a loaded machine to write the 4 KB
		// and the sender to read the head before it.)
		{"over 4 KB, then past the time limit, is an answer unfinished", 2 * time.Second, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(2048))
			_, _ = w.Write(over(2048))
			_, _ = w.Write(over(1))
			<-r.Context().Done()
			return ""
		}},
		// A handler that panics, or ends its goroutine, once the head was
		// written (a Flush, or a body past 2 KB) has sent it: net/http's
		// server flushes its connection's buffer as it closes it, so the
		// sender reads the status, and the body up to what the server
		// held, cut short (or whole, when its declared length was
		// written). Before that, the connection closes with no answer.
		{"a flush, then a panic, is an answer cut short", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			panic("boom")
		}},
		{"a flush, then http.ErrAbortHandler, is an answer cut short", 0, func(w http.ResponseWriter, r *http.Request) string {
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}},
		{"a flush, more written, then a panic: what the server held is lost", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write([]byte("a"))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte("bb"))
			panic("boom")
		}},
		{"over 2 KB written, then a panic", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(100))
			_, _ = w.Write(over(2000))
			_, _ = w.Write(over(100))
			panic("boom")
		}},
		{"over 2 KB in one write, then the goroutine ended", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(3000))
			runtime.Goexit()
			return ""
		}},
		{"its declared length written and flushed, then a panic, is an answer whole", 0, func(w http.ResponseWriter, r *http.Request) string {
			w.Header().Set("Content-Length", "7")
			_, _ = w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}},
		{"a 204 flushed, then a panic, is an answer whole", 0, func(w http.ResponseWriter, r *http.Request) string {
			w.WriteHeader(http.StatusNoContent)
			w.(http.Flusher).Flush()
			panic("boom")
		}},
		{"under 2 KB written, then a panic, is no answer", 0, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = w.Write(over(2000))
			panic("boom")
		}},
		// A handler that takes the connection over (http.Hijacker, which
		// net/http's server's writer is and http.ResponseController
		// reaches) answers on it, or closes it without an answer.
		{"hijacked, then closed", 0, func(w http.ResponseWriter, r *http.Request) string {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return err.Error()
			}
			_, werr := w.Write([]byte("late"))
			return fmt.Sprint(conn.LocalAddr() != nil, conn.RemoteAddr() != nil, werr, conn.Close())
		}},
		{"hijacked, then answered on the connection", 0, func(w http.ResponseWriter, r *http.Request) string {
			conn, brw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return err.Error()
			}
			defer conn.Close()
			_, _ = brw.WriteString("HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}")
			return fmt.Sprint(brw.Flush())
		}},
		{"hijacked after a status, then closed", 0, func(w http.ResponseWriter, r *http.Request) string {
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte("ok"))
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return err.Error()
			}
			return fmt.Sprint(conn.Close())
		}},
		{"hijacked twice", 0, func(w http.ResponseWriter, r *http.Request) string {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return err.Error()
			}
			defer conn.Close()
			_, _, err = w.(http.Hijacker).Hijack()
			return fmt.Sprint(err)
		}},
		{"hijacked before the body was read, which the connection's reader holds", 0, func(w http.ResponseWriter, r *http.Request) string {
			conn, brw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return err.Error()
			}
			defer conn.Close()
			b := make([]byte, len(`{"requestId":"r1"}`))
			_, err = io.ReadFull(brw, b)
			return fmt.Sprint(string(b), err)
		}},
		{"hijacked, then nothing till the time limit", 300 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) string {
			_, _ = io.ReadAll(r.Body)
			conn, brw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return err.Error()
			}
			defer conn.Close()
			_, err = brw.ReadByte() // the sender sends nothing more, and at its time limit closes the connection
			return fmt.Sprint(err)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			call := func(deliver func(http.Handler) attempt.Attempt) seen {
				met := make(chan string, 1)
				a := deliver(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					said := "panicked"
					defer func() { met <- said }() // a handler that panics has met that
					said = tt.h(w, r)
				}))
				return seen{Status: a.Status, Kind: a.Kind, ContentLength: a.Header.Get("Content-Length"), ContentType: a.Header.Get("Content-Type"),
					Body: fmt.Sprintf("%d bytes", len(a.BodyPrefix)), Unfin: a.Unfinished(), Handler: <-met}
			}
			tcp := call(func(h http.Handler) attempt.Attempt { return deliverOverTCP(t, h, timeout) })
			mem := call(func(h http.Handler) attempt.Attempt { a, _ := deliver(t, h, timeout); return a })
			if mem != tcp {
				t.Errorf("in memory %+v\nover TCP  %+v", mem, tcp)
			}
		})
	}
}
