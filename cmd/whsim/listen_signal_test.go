package main

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C stops listen once the calls in flight are answered; while one is
// held it says so (not a listen that hangs), and a second Ctrl-C or
// SIGTERM stops it at once with exit 130 (it used to wait the whole 30 s
// grace through any number of them). The call is held by the receiver
// listen forwards to, which says when it has it: events, not a clock.
func TestListenSecondSignalStopsAtOnce(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			arrived, release := make(chan struct{}, 1), make(chan struct{})
			hold := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				arrived <- struct{}{}
				select {
				case <-r.Context().Done():
				case <-release:
				}
			}))
			defer hold.Close()
			defer close(release)
			cmd, errs, u := startListen(t, nil, "--forward-to", hold.URL)
			answered := make(chan error, 1)
			go func() {
				resp, err := http.Post(u+"hook?businessType=CREATE_RECEIVABLE_DOC", "application/json", strings.NewReader(`{"requestId":"r1","businessType":5007,"data":{}}`))
				if err == nil {
					resp.Body.Close()
				}
				answered <- err
			}()
			<-arrived
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			errs.waitLine(t, "stopping: waiting for the calls in flight to be answered (up to 30s); Ctrl-C again to stop at once")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			errs.waitLine(t, "stopped at once: the calls in flight were left unanswered")
			// The bound is far below the 30 s grace the second signal cuts short.
			err := errs.exited(t, cmd, 10*time.Second)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit %v, want 130", err)
			}
			if err := <-answered; err == nil {
				t.Errorf("the held call was answered, want it left unanswered")
			}
		})
	}
}
