//go:build !linux

package receiver

import (
	"net"
	"time"
)

// senderShut is false off Linux, where the TCP state is not looked at: a
// read that found the sender's side closed says it (watchedConn.readShut).
func senderShut(net.Conn) bool { return false }

// answerTaken does not know off Linux whether a sender that closed its
// side took the answer.
func answerTaken(net.Conn, time.Duration) (taken, known bool) { return false, false }
