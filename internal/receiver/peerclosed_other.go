//go:build !linux

package receiver

import (
	"net"
	"time"
)

// peerClosed is Linux's (peerclosed_linux.go): here a socket is not looked
// at without a read, and a kept-alive connection is taken as open.
func peerClosed(net.Conn) bool { return false }

// readUnread is Linux's (peerclosed_linux.go): here no reset is looked
// for, and a forward whose receiver closed first may hold the call.
func readUnread(net.Conn, time.Time, func()) bool { return false }

// ackState, ackStateOf and neverAcked are Linux's
// (peerclosed_linux.go): here a reset call's bytes are not known unread,
// and the receiver may hold it.
type ackState struct{ ok bool }

func ackStateOf(net.Conn) ackState       { return ackState{} }
func neverAcked(net.Conn, ackState) bool { return false }
