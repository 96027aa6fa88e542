package receiver

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// tcpPair is a connected pair of TCP connections on the loopback.
func tcpPair(t *testing.T) (local, peer *net.TCPConn) {
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
	a := <-accepted
	if a == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); a.Close() })
	return a.(*net.TCPConn), c.(*net.TCPConn)
}

// TestRawWriterAsConn holds rawWriter's results and errors to net.Conn's
// Write on the same connection.
func TestRawWriterAsConn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// breakConn puts the connection in the state the writes meet.
		breakConn func(t *testing.T, local, peer *net.TCPConn)
		is        error
	}{
		{"closed", func(t *testing.T, local, _ *net.TCPConn) { local.Close() }, net.ErrClosed},
		{"past its deadline", func(t *testing.T, local, _ *net.TCPConn) {
			local.SetWriteDeadline(time.Unix(1, 0))
		}, os.ErrDeadlineExceeded},
		{"reset by the peer", func(t *testing.T, local, peer *net.TCPConn) {
			peer.SetLinger(0) // close sends a reset
			peer.Close()
			// The reset has arrived once a read says so.
			if _, err := local.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("read after the reset: %v", err)
			}
		}, syscall.EPIPE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			local, peer := tcpPair(t)
			raw := newRawWriter(local)
			tc.breakConn(t, local, peer)
			p := []byte("HTTP/1.1 200 OK\r\n\r\n")
			n, err := raw.Write(p)
			wantN, want := local.Write(p)
			if n != wantN || err == nil || want == nil || err.Error() != want.Error() {
				t.Fatalf("raw write: %d, %v; net.Conn's: %d, %v", n, err, wantN, want)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("raw write's error %v is not %v", err, tc.is)
			}
			var ne net.Error
			if !errors.As(err, &ne) || ne.Timeout() != errors.Is(tc.is, os.ErrDeadlineExceeded) {
				t.Errorf("raw write's error %v: a net.Error with Timeout %v wanted", err, errors.Is(tc.is, os.ErrDeadlineExceeded))
			}
		})
	}
}

// TestRawWriterWaitsForRoom writes far more than the socket buffers hold
// in one call: the write waits on the poller for the peer to read, and
// every byte arrives in order.
func TestRawWriterWaitsForRoom(t *testing.T) {
	t.Parallel()
	local, peer := tcpPair(t)
	p := make([]byte, 4<<20)
	for i := range p {
		p[i] = byte(i * 7)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(peer)
		got <- b
	}()
	n, err := newRawWriter(local).Write(p)
	if n != len(p) || err != nil {
		t.Fatalf("write: %d, %v; want %d, nil", n, err, len(p))
	}
	local.CloseWrite()
	if b := <-got; !bytes.Equal(b, p) {
		t.Fatalf("the peer read %d bytes, not the %d written", len(b), len(p))
	}
}

func TestNewRawWriterOnlyTCP(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if w := newRawWriter(a); w != nil {
		t.Errorf("newRawWriter(a pipe) = %v, want nil", w)
	}
}
