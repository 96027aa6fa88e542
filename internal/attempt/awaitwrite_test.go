package attempt

import (
	"net"
	"testing"
	"testing/synctest"
)

// writeHeldBack is a connection whose writes return only once release is
// closed, their bytes sent: the writer of a loaded machine, back from the
// system call with no thread to run on.
type writeHeldBack struct {
	net.Conn
	release chan struct{}
}

func (c *writeHeldBack) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	<-c.release
	return n, err
}

// The read of an answer's start waits until the call's write has
// returned (awaitWrite): net/http's reader otherwise reaches the answer's
// end first, waits 50 ms for its writer's word, and closes the connection
// unsaid, with bytes the receiver sent after the answer left unseen in
// its buffer. A 4xx or 5xx answer does not wait: a receiver that refuses
// a body may never read it, and the write may never return.
func TestAnswerReadWaitsForTheWriteToReturn(t *testing.T) {
	for _, tc := range []struct {
		answer string
		waits  bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true},
		{"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", false},
	} {
		synctest.Test(t, func(t *testing.T) {
			client, server := net.Pipe()
			defer server.Close()
			held := &writeHeldBack{Conn: client, release: make(chan struct{})}
			wc := newWatchConn(held, nil)
			defer wc.Close()
			wrote := make(chan error, 1)
			go func() {
				_, err := wc.Write([]byte("POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
				wrote <- err
			}()
			go func() {
				buf := make([]byte, 1024)
				if _, err := server.Read(buf); err != nil {
					t.Error(err)
					return
				}
				if _, err := server.Write([]byte(tc.answer)); err != nil {
					t.Error(err)
				}
			}()
			read := make(chan int, 1)
			go func() {
				n, _ := wc.Read(make([]byte, 1024))
				read <- n
			}()
			synctest.Wait() // each goroutine done, or blocked for good
			returned := len(read) == 1
			if returned == tc.waits {
				t.Errorf("%q: the answer's read returned %v with the call's write under way, want %v", tc.answer, returned, !tc.waits)
			}
			close(held.release)
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if n := <-read; n != len(tc.answer) {
				t.Errorf("%q: read %d bytes, want %d", tc.answer, n, len(tc.answer))
			}
		})
	}
}
