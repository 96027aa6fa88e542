package testnet

import (
	"net"
	"sync"
	"testing"
)

// Serve listens on a free port of 127.0.0.1 and runs handle on each
// connection it accepts, in a goroutine of its own, closing the connection
// when handle returns. The listener is returned for its address and for the
// tests that close it early. At cleanup it closes the listener and every
// connection still open, then waits for the handlers to return: none
// outlives the test (whose counts and channels it may still be writing),
// and one blocked on its connection ends there. A handler blocked on
// something else must be released by a cleanup registered after Serve,
// which runs before this one.
func Serve(t testing.TB, handle func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		open    = map[net.Conn]struct{}{}
		stopped bool
		running sync.WaitGroup
	)
	running.Add(1)
	go func() {
		defer running.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if stopped {
				// Accepted as cleanup closed the others: its handler
				// would start after the wait began.
				mu.Unlock()
				c.Close()
				return
			}
			open[c] = struct{}{}
			running.Add(1)
			mu.Unlock()
			go func() {
				defer running.Done()
				defer func() {
					mu.Lock()
					delete(open, c)
					mu.Unlock()
					c.Close()
				}()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		stopped = true
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		running.Wait()
	})
	return ln
}
