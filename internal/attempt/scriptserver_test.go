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
)

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
	// read hears of each call read whole, closed of each connection the
	// script closed.
	read, closed chan struct{}
	stop         chan struct{}
	tls          bool // over TLS (tlsScriptServer)
}

func newScriptServer(t *testing.T, script func(k int, body []byte) (string, bool, bool, bool)) *scriptServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptServer{ln: ln, script: script, read: make(chan struct{}, 1000), closed: make(chan struct{}, 1000), stop: make(chan struct{})}
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
		// Written in pieces of at most 1,000 bytes, so that an answer may
		// come to the sender in several reads.
		for rest := answer; rest != ""; {
			n := min(len(rest), 1000)
			if _, err := io.WriteString(c, rest[:n]); err != nil {
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
			c.Close()
			s.closed <- struct{}{}
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
