//go:build linux

package check

import (
	"cmp"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A receiver that closes its connection after every answer, without
// saying so (no Connection: close), is graded as any other: the careful
// receiver passes every check, and no call fails with the close blamed on
// it. Its answer and its close go out in one segment (TCP_CORK until the
// close), so the close has reached whsim by the time it reads the answer:
// whsim must find the connection closed before it writes the next call.
func TestCarefulReceiverClosingAfterEveryAnswer(t *testing.T) {
	srv := httptest.NewUnstartedServer(newReceiver(t, defects{}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			cork(t, c)
		case http.StateIdle: // the answer is written: close without a word
			c.Close()
		}
	}
	srv.Start()
	defer srv.Close()
	var mu sync.Mutex
	var failed []string
	sum, err := Run(context.Background(), testConfig(t, srv.URL), func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		if r.Verdict == Fail {
			failed = append(failed, r.Case.Check+"/"+r.Case.Name+": "+r.Reason)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed() || len(failed) > 0 {
		t.Errorf("the careful receiver failed, closing after every answer:\n%s", strings.Join(failed, "\n"))
	}
}

// cork holds what is written to c until it is closed (TCP_CORK), so that
// an answer and the close that follows it travel together.
func cork(t *testing.T, c net.Conn) {
	var serr error
	sc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		err = sc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, 1)
		})
	}
	if err = cmp.Or(err, serr); err != nil {
		t.Error(err)
	}
}
