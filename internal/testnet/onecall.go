package testnet

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// OneCallServer is a receiver on raw TCP that reads one call on each
// connection, answers it with a bodyless 200 (no Connection: close) once
// the call's gate opens (at once for a body with none), and closes the
// connection. It tells of each call read and of each close the client has
// taken (WaitTaken), by the call's body. The tests of a call made again
// after a closed kept-alive connection (the delivery code's and listen's
// forward) hold net/http's pool in one state with it.
//
// Its connections are not Serve's: a handler waits on its gate, which a
// test that failed first never opens, and Serve's cleanup would wait for
// it.
type OneCallServer struct {
	*CallLog
	ln net.Listener
}

// NewOneCallServer starts a OneCallServer on 127.0.0.1, its listener
// closed at cleanup.
func NewOneCallServer(t testing.TB) *OneCallServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &OneCallServer{CallLog: NewCallLog(), ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

// URL is the server's address, path /hook.
func (s *OneCallServer) URL() *url.URL {
	u, _ := url.Parse("http://" + s.ln.Addr().String() + "/hook")
	return u
}

func (s *OneCallServer) serve(c net.Conn) {
	defer c.Close()
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	gate, first := s.Arrived(string(body))
	if gate != nil {
		<-gate
	}
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	c.(*net.TCPConn).CloseWrite()
	WaitTaken(c)
	if first {
		s.Taken(string(body))
	}
}
