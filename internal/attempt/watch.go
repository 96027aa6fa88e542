package attempt

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
)

// watchConn is a connection of net/http's transport, watched so that a
// kept-alive one is never written on when it cannot carry a call: the
// receiver closed it, or sent bytes no call asked for (a 204 with a body,
// more than its answer framed). net/http finds either only once its
// reading goroutine looks again after an answer, and a call that takes
// the connection first has the close blamed on the receiver, or the
// bytes read as its answer.
//
// The reading goroutine's read of an idle connection is marked: it looks
// at the socket first (peekIdle) and, finding nothing, says it waits.
// Before a call goes out on a kept-alive connection (GotConn), ready waits
// for that mark, or for the connection's close (net/http's reading
// goroutine closes it on the receiver's close or on bytes it did not ask
// for); then looks at the socket once more. A connection found unfit is
// closed and refuses writes, so nothing of the call goes out on it, and
// the call is made again on another (Deliverer.attempt).
type watchConn struct {
	net.Conn
	waiting atomic.Bool // a read waits on an empty socket
	closed  atomic.Bool
	kick    chan struct{} // a change of waiting or closed
}

// errUnfit is the write refused on a connection found unfit before a call.
var errUnfit = errors.New("kept-alive connection closed by the receiver or holding bytes no call asked for")

func newWatchConn(c net.Conn) *watchConn {
	return &watchConn{Conn: c, kick: make(chan struct{}, 1)}
}

func (c *watchConn) signal() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *watchConn) Read(p []byte) (int, error) {
	if !peekIdle(c.Conn) {
		return c.Conn.Read(p) // something is there: the read returns at once
	}
	c.waiting.Store(true)
	c.signal()
	n, err := c.Conn.Read(p)
	c.waiting.Store(false)
	return n, err
}

func (c *watchConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, errUnfit
	}
	return c.Conn.Write(p)
}

func (c *watchConn) Close() error {
	c.closed.Store(true)
	c.signal()
	return c.Conn.Close()
}

// ready says whether the kept-alive connection may carry the next call:
// it waits until net/http reads it idle, or has closed it; an unfit one
// is closed. ctx bounds the wait (the attempt's).
func (c *watchConn) ready(ctx context.Context) bool {
	for {
		switch {
		case c.closed.Load():
			return false
		case c.waiting.Load():
			if peekIdle(c.Conn) {
				return true
			}
			c.Close()
			return false
		}
		select {
		case <-c.kick:
		case <-ctx.Done():
			return false
		}
	}
}

// unwrap is the connection a watchConn watches: the fast path reads and
// writes the socket itself.
func unwrap(c net.Conn) net.Conn {
	if wc, ok := c.(*watchConn); ok {
		return wc.Conn
	}
	return c
}
