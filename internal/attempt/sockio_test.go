package attempt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// tcpPair is a connected pair of TCP connections on loopback.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, peer
}

// A worker's socket sends and reads as net.Conn writes and reads: Send
// returns once the answer can be read, a request larger than the socket's
// buffers waits for the reader and arrives whole, a deadline is a timeout,
// the peer's close an EOF and its reset a reset.
func TestSockIO(t *testing.T) {
	const answer = "HTTP/1.1 200 OK\r\n"
	readAnswer := func(t *testing.T, r io.Reader) {
		t.Helper()
		b := make([]byte, 64)
		n, err := io.ReadAtLeast(r, b, len(answer))
		if err != nil || string(b[:n]) != answer {
			t.Errorf("read %q, %v", b[:n], err)
		}
	}
	for _, size := range []int{100, 4 << 20} {
		t.Run(fmt.Sprintf("%d bytes", size), func(t *testing.T) {
			c, peer := tcpPair(t)
			data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
			got := make(chan []byte, 1)
			answered := make(chan bool, 1)
			go func() {
				time.Sleep(20 * time.Millisecond) // a large request fills the buffers first
				b, _ := io.ReadAll(io.LimitReader(peer, int64(len(data))))
				got <- b
				time.Sleep(20 * time.Millisecond)
				answered <- true
				_, _ = io.WriteString(peer, answer)
			}()
			cio := newSockIO(c)
			if err := cio.Send(data, false); err != nil {
				t.Fatal(err)
			}
			select {
			case <-answered:
			default:
				// A larger one returns once written, as net.Conn's
				// Write does elsewhere than on Linux.
				if size < 1<<16 && runtime.GOOS == "linux" {
					t.Error("Send returned before the answer came")
				}
			}
			if !bytes.Equal(<-got, data) {
				t.Error("the peer read other bytes")
			}
			readAnswer(t, cio)
		})
	}
	t.Run("deadline waiting for the answer", func(t *testing.T) {
		c, _ := tcpPair(t)
		_ = c.SetDeadline(time.Now().Add(20 * time.Millisecond))
		err := newSockIO(c).Send([]byte("POST / HTTP/1.1\r\n\r\n"), false)
		var oe *net.OpError
		if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "read" || Classify(err) != KindTimeout {
			t.Errorf("got %v, want a read timeout", err)
		}
	})
	t.Run("deadline reading", func(t *testing.T) {
		c, _ := tcpPair(t)
		_ = c.SetDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := newSockIO(c).Read(make([]byte, 8))
		if !errors.Is(err, os.ErrDeadlineExceeded) || Classify(err) != KindTimeout {
			t.Errorf("got %v, want a read timeout", err)
		}
	})
	t.Run("peer closed", func(t *testing.T) {
		c, peer := tcpPair(t)
		peer.Close()
		if _, err := newSockIO(c).Read(make([]byte, 8)); err != io.EOF {
			t.Errorf("got %v, want EOF", err)
		}
	})
	t.Run("peer closed before the request", func(t *testing.T) {
		c, peer := tcpPair(t)
		peer.Close()
		cio := newSockIO(c)
		err := cio.Send([]byte("POST / HTTP/1.1\r\n\r\n"), false)
		if err == nil {
			_, err = cio.Read(make([]byte, 8))
		}
		if !staleErr(err) {
			t.Errorf("got %v, want a stale connection", err)
		}
	})
	// With check, a socket with something to read (bytes no call asked
	// for, the peer's close) gets nothing written: errBusy; an idle one
	// the request.
	for _, tc := range []struct {
		name string
		peer func(net.Conn)
		want error
	}{
		{"checked, idle", func(net.Conn) {}, nil},
		{"checked, bytes waiting", func(p net.Conn) { _, _ = io.WriteString(p, "HTTP/1.1 200 OK\r\n") }, errBusy},
		{"checked, peer closed", func(p net.Conn) { _ = p.(*net.TCPConn).CloseWrite() }, errBusy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, peer := tcpPair(t)
			tc.peer(peer)
			const req = "POST / HTTP/1.1\r\n\r\n"
			if tc.want == nil {
				go func() {
					b := make([]byte, len(req))
					if _, err := io.ReadFull(peer, b); err == nil {
						_, _ = io.WriteString(peer, answer)
					}
				}()
			}
			cio := newSockIO(c)
			err := cio.Send([]byte(req), true)
			if err != tc.want {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.want == nil {
				readAnswer(t, cio)
				return
			}
			// Closed with bytes unread, c resets rather than ends: either
			// way the peer reads none of the request.
			c.Close()
			if got, _ := io.ReadAll(peer); len(got) > 0 {
				t.Errorf("the peer read %q: want nothing", got)
			}
		})
	}
	t.Run("peer reset", func(t *testing.T) {
		c, peer := tcpPair(t)
		_ = peer.(*net.TCPConn).SetLinger(0)
		peer.Close()
		time.Sleep(10 * time.Millisecond)
		_, err := newSockIO(c).Read(make([]byte, 8))
		if Classify(err) != KindReset || !staleErr(err) {
			t.Errorf("got %v, want a reset", err)
		}
	})
}
