package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listen whose stdout failed (a full disk: 2; its reader gone: 141) exits
// so whichever came first, that failure or one SIGTERM: the calls were
// answered but their lines never reached stdout, and a signal does not
// make that true. A SIGTERM that came once listen had stopped by itself
// read as the second of a Ctrl-C twice: exit 130, a race a CI run lost.
// A call held half sent keeps listen stopping while the test orders the
// two: events (the answer, the "stopping:" line), not a clock.
func TestListenStdoutFailureOutlivesASignal(t *testing.T) {
	for _, stdout := range []struct {
		name string
		code int
		open func(t *testing.T) *os.File
	}{
		{"full", 2, func(t *testing.T) *os.File {
			f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Skip("no /dev/full:", err)
			}
			return f
		}},
		{"closed", 141, readerlessStdout},
	} {
		for _, signalFirst := range []bool{true, false} {
			name := stdout.name + "/stdout failed first"
			if signalFirst {
				name = stdout.name + "/SIGTERM first"
			}
			t.Run(name, func(t *testing.T) {
				out := stdout.open(t)
				defer out.Close()
				cmd, errs, u := startListen(t, out)
				held := holdCall(t, u, "r0")
				if signalFirst {
					if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
						t.Fatal(err)
					}
					errs.waitLine(t, "stopping: waiting for the calls in flight")
					// Its answer is printed at the stop: the write fails.
					held.finish(t)
				} else {
					postCall(t, u, "r1") // printed when listen is idle: the write fails, listen stops
					// No Ctrl-C began this stop: not "again".
					errs.waitLine(t, "stopping: waiting for the calls in flight to be answered (up to 30s); Ctrl-C to stop at once")
					if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
						t.Fatal(err)
					}
				}
				err := errs.exited(t, cmd, 20*time.Second) // far below the 30 s grace
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != stdout.code {
					t.Errorf("exit %v, want %d:\n%s", err, stdout.code, errs.text())
				}
				if !strings.Contains(errs.text(), "not printed: the calls since") {
					t.Errorf("the summary does not say calls went unprinted:\n%s", errs.text())
				}
			})
		}
	}
}

// readerlessStdout is a stdout whose reader is gone before listen prints
// (head -1 gone), which listen finds at its first write, not before
// (unwatchedStdout).
func readerlessStdout(t *testing.T) *os.File {
	r, w := unwatchedStdout(t)
	r.Close()
	return w
}

// heldCall is a call whose body is half sent: listen's handler runs and
// waits for the rest.
type heldCall struct {
	conn net.Conn
	rest string
}

// holdCall sends requestId id's head and half its body to the listen at u,
// and returns once listen reads the body (its 100 Continue).
func holdCall(t *testing.T, u, id string) *heldCall {
	t.Helper()
	body := `{"requestId":"` + id + `","businessType":5007,"data":{}}`
	host, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: " + host +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\nExpect: 100-continue\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if l, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(l, "HTTP/1.1 100 ") {
		t.Fatalf("read %q, %v, want a 100 Continue", l, err)
	}
	if _, err := br.ReadString('\n'); err != nil { // the 100's empty line
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, body[:10]); err != nil {
		t.Fatal(err)
	}
	return &heldCall{conn: conn, rest: body[10:]}
}

// finish sends the rest of the body and waits for the answer, 200.
func (h *heldCall) finish(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(h.conn, h.rest); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(h.conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the held call was answered %d", resp.StatusCode)
	}
}

// postCall sends requestId id to the listen at u and waits for its answer, 200.
func postCall(t *testing.T, u, id string) {
	t.Helper()
	resp, err := http.Post(u+"?businessType=CREATE_RECEIVABLE_DOC", "application/json",
		strings.NewReader(`{"requestId":"`+id+`","businessType":5007,"data":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("call %s was answered %d", id, resp.StatusCode)
	}
}
