package testnet

import (
	"bufio"
	"io"
	"net"
	"testing"
)

// TestServe: a connection is handed to the handler and closed when it
// returns; at cleanup the listener is closed, a handler still blocked on
// its connection is ended, and Serve's cleanup returns only once it has.
func TestServe(t *testing.T) {
	var addr string
	var openClient net.Conn
	defer func() {
		if openClient != nil {
			openClient.Close()
		}
	}()
	blocking, blockedEnded := make(chan struct{}), make(chan struct{})
	t.Run("serve", func(t *testing.T) {
		ln := Serve(t, func(c net.Conn) {
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				return
			}
			if line == "block\n" {
				defer close(blockedEnded)
				close(blocking)
				io.Copy(io.Discard, c) // until cleanup closes c
				return
			}
			io.WriteString(c, "got "+line)
		})
		addr = ln.Addr().String()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "hello\n"); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(c) // to EOF: Serve closed c when the handler returned
		if err != nil || string(got) != "got hello\n" {
			t.Fatalf("read %q, %v; want %q and EOF", got, err, "got hello\n")
		}
		// Left open by the client until Serve's cleanup is over: only
		// Serve's close of its end can end the handler.
		blocked, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		openClient = blocked
		if _, err := io.WriteString(blocked, "block\n"); err != nil {
			t.Fatal(err)
		}
		<-blocking
	})
	select {
	case <-blockedEnded:
	default:
		t.Error("Serve's cleanup returned before a handler blocked on its connection ended")
	}
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
		t.Fatalf("dialed %s after cleanup; want the listener closed", addr)
	}
}
