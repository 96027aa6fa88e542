package testnet

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
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
	ln    net.Listener
	mu    sync.Mutex
	gates map[string]chan struct{}
	read  map[string]chan struct{}
	taken map[string]chan struct{}
	got   map[string]int
}

// NewOneCallServer starts a OneCallServer on 127.0.0.1, its listener
// closed at cleanup.
func NewOneCallServer(t testing.TB) *OneCallServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &OneCallServer{ln: ln, gates: map[string]chan struct{}{}, read: map[string]chan struct{}{}, taken: map[string]chan struct{}{}, got: map[string]int{}}
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

// Gate makes the call with body wait for the returned channel's close
// before it is answered.
func (s *OneCallServer) Gate(body string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := make(chan struct{})
	s.gates[body] = g
	return g
}

// WaitRead returns once the call with body was read.
func (s *OneCallServer) WaitRead(body string) {
	_, read, _ := s.chans(body)
	<-read
}

// WaitTaken returns once the client's end took the answer to the call
// with body and the connection's close (its FIN acknowledged).
func (s *OneCallServer) WaitTaken(body string) {
	_, _, taken := s.chans(body)
	<-taken
}

// Calls is how many times the call with body was read.
func (s *OneCallServer) Calls(body string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[body]
}

// chans are the gate, read and taken channels of the call with body.
func (s *OneCallServer) chans(body string) (gate, read, taken chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.read[body] == nil {
		s.read[body], s.taken[body] = make(chan struct{}), make(chan struct{})
	}
	return s.gates[body], s.read[body], s.taken[body]
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
	gate, read, taken := s.chans(string(body))
	s.mu.Lock()
	s.got[string(body)]++
	first := s.got[string(body)] == 1
	s.mu.Unlock()
	if first {
		close(read)
	}
	if gate != nil {
		<-gate
	}
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	c.(*net.TCPConn).CloseWrite()
	WaitTaken(c)
	if first {
		close(taken)
	}
}
