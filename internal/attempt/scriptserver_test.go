package attempt

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// callLimit is the time limit of the calls of a test whose receiver
// holds one of them (held), whose timeout is the outcome tested, or none.
// A run's time limit is one for all its calls (the fast path only ever
// moves a connection's deadline later), so where one is held the calls
// the receiver answers at once share its limit: a few seconds, where
// 500ms timed out a small call at a load of 17 on 2 cores. Where none is,
// a minute, which no call answered at once comes near however loaded the
// machine (a 16 MiB call took over 2s under -race beside CI's other
// packages).
func callLimit(held bool) time.Duration {
	if held {
		return 3 * time.Second
	}
	return time.Minute
}

// ok200 is a whole answer, kept alive.
const ok200 = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// scriptServer is a receiver on raw TCP that answers the k-th call on
// each connection (from 0), with body, with script(k, body): its bytes,
// then whether it closes the connection (with a reset when reset is
// set), or stalls without answering (stall: until the test ends). It
// counts the calls it read whole.
type scriptServer struct {
	ln     net.Listener
	script func(k int, body []byte) (answer string, close, reset, stall bool)
	got    atomic.Int64
	// read hears of each call read whole.
	read chan struct{}
	// closing counts the connections the script chose to close, each
	// counted before its answer is written; closes counts those closed
	// since (awaitClosed), each change told on closed.
	closing, closes atomic.Int64
	closed          chan struct{}
	stop            chan struct{}
	tls             bool // over TLS (tlsScriptServer)
}

func newScriptServer(t *testing.T, script func(k int, body []byte) (string, bool, bool, bool)) *scriptServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptServer{ln: ln, script: script, read: make(chan struct{}, 1000), closed: make(chan struct{}, 1), stop: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	t.Cleanup(func() { close(s.stop); ln.Close() })
	return s
}

func (s *scriptServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for k := 0; ; k++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		s.got.Add(1)
		select {
		case s.read <- struct{}{}:
		default:
		}
		answer, closeIt, reset, stall := s.script(k, body)
		closeIt = closeIt && !stall && !reset
		if closeIt {
			s.closing.Add(1)
		}
		// Written in pieces of at most 1,000 bytes, so that an answer may
		// come to the sender in several reads.
		for rest := answer; rest != ""; {
			n := min(len(rest), 1000)
			if _, err := io.WriteString(c, rest[:n]); err != nil {
				// The sender ended the connection (its time limit): the
				// close chosen is made all the same.
				if closeIt {
					s.close(c)
				}
				return
			}
			rest = rest[n:]
		}
		switch {
		case stall:
			<-s.stop
			return
		case reset:
			raw := c
			if tc, ok := c.(*tls.Conn); ok {
				raw = tc.NetConn()
			}
			raw.(*net.TCPConn).SetLinger(0)
			raw.Close()
			return
		case closeIt:
			s.close(c)
			return
		}
	}
}

// close closes a connection the script chose to close, and tells it.
func (s *scriptServer) close(c net.Conn) {
	c.Close()
	s.closes.Add(1)
	select {
	case s.closed <- struct{}{}:
	default: // told already: the waiter counts
	}
}

// awaitClosed waits until each connection the script chose to close so
// far is closed: for a sender whose next call must find the close there
// (a close after the look before a call is a race no sender wins). A
// call answered, or met by the close, on such a connection was counted
// before its bytes went out, so once that call returned its close is
// waited for; a call that went out on a connection the script keeps (the
// first on a new one, after the last failed on the sender's side, as a
// loaded machine's time limit may fail it) has none to wait for. It
// gives up, failing the test, shortly before the test's deadline.
func (s *scriptServer) awaitClosed(t *testing.T) {
	t.Helper()
	want := s.closing.Load()
	var giveUp <-chan time.Time
	if d, ok := t.Deadline(); ok {
		// Before go test's own alarm, which would end every test with a
		// panic and no word of this one's wait.
		timer := time.NewTimer(time.Until(d) * 19 / 20)
		defer timer.Stop()
		giveUp = timer.C
	}
	for s.closes.Load() < want {
		select {
		case <-s.closed:
		case <-giveUp:
			// Errorf, not Fatalf: the wait may be a lane's, on a goroutine
			// not the test's.
			t.Errorf("the receiver closed %d of the %d connections its script chose to close, by the test's deadline", s.closes.Load(), want)
			return
		}
	}
}

func (s *scriptServer) url() *url.URL {
	scheme := "http"
	if s.tls {
		scheme = "https"
	}
	u, _ := url.Parse(scheme + "://" + s.ln.Addr().String() + "/hook")
	return u
}
