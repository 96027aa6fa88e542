package deliver

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
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

// A worker's socket reads and writes as net.Conn does: a write larger than
// the socket's buffers waits for the reader and arrives whole, a deadline
// is a timeout, the peer's close an EOF and its reset a reset.
func TestSockIOAsNetConn(t *testing.T) {
	t.Run("large write waits and arrives whole", func(t *testing.T) {
		c, peer := tcpPair(t)
		data := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
		got := make(chan []byte)
		go func() {
			time.Sleep(20 * time.Millisecond) // the writer's buffers fill first
			b, _ := io.ReadAll(io.LimitReader(peer, int64(len(data))))
			got <- b
		}()
		n, err := newSockIO(c).Write(data)
		if err != nil || n != len(data) {
			t.Fatalf("wrote %d, %v", n, err)
		}
		if !bytes.Equal(<-got, data) {
			t.Error("the peer read other bytes")
		}
	})
	t.Run("read", func(t *testing.T) {
		c, peer := tcpPair(t)
		go func() { _, _ = peer.Write([]byte("HTTP/1.1 200 OK\r\n")) }()
		b := make([]byte, 64)
		n, err := io.ReadAtLeast(newSockIO(c), b, 17)
		if err != nil || string(b[:n]) != "HTTP/1.1 200 OK\r\n" {
			t.Errorf("read %q, %v", b[:n], err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		c, _ := tcpPair(t)
		_ = c.SetDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := newSockIO(c).Read(make([]byte, 8))
		var oe *net.OpError
		if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "read" || Classify(err) != KindTimeout {
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
