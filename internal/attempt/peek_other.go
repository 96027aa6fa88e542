//go:build !linux

package attempt

import "net"

// peekIdle cannot look at a socket without reading it here: a kept-alive
// connection is taken as idle, and one the receiver closed fails the call
// (Linux looks first: peek_linux.go).
func peekIdle(net.Conn) bool { return true }

// peekBytes sees nothing here (peekIdle's look is Linux's).
func peekBytes(net.Conn, []byte) int { return 0 }

// readableWait is Linux's (peek_linux.go): here a read of a socket under
// TLS is made as any other.
type readableWait struct{}

func newReadableWait(net.Conn) *readableWait { return nil }

func (*readableWait) wait() error { return nil }

func (*readableWait) now() (bool, error) { return true, nil }
