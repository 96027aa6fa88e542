//go:build !linux

package receiver

import (
	"errors"
	"net"
	"os"
	"time"
)

// drainAccept is how long the stop's last Accept waits to find the accept
// queue empty: what each stop costs more.
const drainAccept = 20 * time.Millisecond

// acceptQueued takes a connection queued on tl, nil once none came within
// drainAccept. Off Linux it leans on a deadline: a deadline already past
// when Accept runs fails it before it looks, so a goroutine held that long
// by a loaded machine leaves the rest of the queue to be reset.
// pause runs between the two (a test's stand-in for the scheduler).
func acceptQueued(tl *net.TCPListener, pause func()) (net.Conn, error) {
	tl.SetDeadline(time.Now().Add(drainAccept))
	pause()
	c, err := tl.Accept()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, nil
	}
	return c, err
}

// bufferedBytes is 0 off Linux: a drained connection's read that its
// deadline failed is not retried.
func bufferedBytes(net.Conn) int { return 0 }

// readQueued reads nothing off Linux: a read its deadline failed is not
// retried.
func readQueued(net.Conn, []byte) int { return 0 }

// readsQueued says readQueued reads what a socket holds: not off Linux.
const readsQueued = false
