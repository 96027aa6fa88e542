//go:build !linux

package attempt

import "net"

// peekIdle cannot look at a socket without reading it here: a kept-alive
// connection is taken as idle, and one the receiver closed fails the call
// (Linux looks first: peek_linux.go).
func peekIdle(net.Conn) bool { return true }

// peekBytes sees nothing here (peekIdle's look is Linux's).
func peekBytes(net.Conn, []byte) int { return 0 }

// waitReadable returns at once here: the read that follows waits.
func waitReadable(net.Conn) error { return nil }
