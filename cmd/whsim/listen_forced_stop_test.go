package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A second Ctrl-C or SIGTERM stops listen at once, leaving the calls in
// flight unanswered; those calls reached listen all the same, so each is
// in --capture, printed and counted, with the true reason it got no
// answer. They used to be cut short after listen had stopped waiting for
// them: recorded as a forward that failed with "context canceled" (or not
// recorded), never printed, a summary of 0 calls, and a finding that the
// sender had closed its connection. Each case holds one call where the
// test sees it held (the receiver has it, or its body is half sent):
// events, not a clock.
func TestListenForcedStopKeepsTheCallsInFlight(t *testing.T) {
	const body = `{"requestId":"r1","businessType":5007,"data":{}}`
	cases := []struct {
		name string
		sig  syscall.Signal
		// forward says the call is held by the receiver listen forwards
		// to (which reads it and never answers); else its body is half
		// sent when listen is stopped.
		forward bool
	}{
		{"forward held/SIGINT", syscall.SIGINT, true},
		{"forward held/SIGTERM", syscall.SIGTERM, true},
		{"body half sent/SIGINT", syscall.SIGINT, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			capPath := filepath.Join(t.TempDir(), "c.ndjson")
			args := []string{"--capture", capPath}
			arrived := make(chan struct{}, 1)
			if tc.forward {
				args = append(args, "--forward-to", "http://"+silentReceiver(t, arrived))
			}
			var stdout bytes.Buffer
			cmd, errs, u := startListen(t, &stdout, args...)
			hook := strings.TrimPrefix(u, "http://")
			host, _, _ := strings.Cut(hook, "/")
			conn, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			head := "POST /hook?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: " + host +
				"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
			if tc.forward {
				if _, err := io.WriteString(conn, head+"\r\n"+body); err != nil {
					t.Fatal(err)
				}
				<-arrived
			} else {
				// The 100 Continue says the handler reads the body.
				if _, err := io.WriteString(conn, head+"Expect: 100-continue\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
				cont, err := bufio.NewReader(conn).ReadString('\n')
				if err != nil || !strings.HasPrefix(cont, "HTTP/1.1 100 ") {
					t.Fatalf("read %q, %v, want a 100 Continue", cont, err)
				}
				if _, err := io.WriteString(conn, body[:10]); err != nil {
					t.Fatal(err)
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			// Said only while a call is still in flight.
			errs.waitLine(t, "stopping: waiting for the calls in flight to be answered")
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			errs.waitLine(t, "stopped at once: the calls in flight were left unanswered")
			err = errs.exited(t, cmd, 10*time.Second) // far below the 30 s grace the second signal cuts short
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit %v, want 130", err)
			}
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if got, _ := io.ReadAll(conn); len(got) > 0 {
				t.Errorf("the held call was answered %q, want it left unanswered", got)
			}

			data, err := os.ReadFile(capPath)
			if err != nil {
				t.Fatal(err)
			}
			var recs []string
			if len(data) > 0 {
				recs = strings.Split(strings.TrimSpace(string(data)), "\n")
			}
			if len(recs) != 1 {
				t.Fatalf("--capture holds %d records, want the held call's:\n%s", len(recs), data)
			}
			var rec struct {
				Path    string
				Forward *struct{ Error string }
			}
			if err := json.Unmarshal([]byte(recs[0]), &rec); err != nil {
				t.Fatal(err)
			}
			if tc.forward {
				if rec.Forward == nil || !strings.Contains(rec.Forward.Error, "listen was stopped at once") {
					t.Errorf("the record's forward %+v, want an error saying listen was stopped at once:\n%s", rec.Forward, recs[0])
				}
			}
			out, errOut := stdout.String(), errs.text()
			if !strings.Contains(errOut, "listen stopped: 1 call ") {
				t.Errorf("the summary does not count the held call:\n%s", errOut)
			}
			if !strings.Contains(out, "/hook") || !strings.Contains(out, "listen was stopped at once (a second Ctrl-C or SIGTERM) before the answer") {
				t.Errorf("the held call is not printed with why it was not answered:\n%s", out)
			}
			if strings.Contains(out, "the sender closed its connection") || strings.Contains(out+string(data), "context canceled") {
				t.Errorf("a reason that is not true:\n%s\n%s", out, data)
			}
		})
	}
}

// silentReceiver listens on 127.0.0.1, reads what each connection sends
// and never answers; arrived gets a value when a call's first bytes came.
func silentReceiver(t *testing.T, arrived chan<- struct{}) string {
	ln := testnet.Serve(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			select {
			case arrived <- struct{}{}:
			default:
			}
		}
	})
	return ln.Addr().String()
}

// A second Ctrl-C while the receiver holds the copy duplicate sends after
// its call's answer cuts the copy short, and says so: it said "the calls
// in flight were left unanswered" of a call whose sender had its answer.
// The receiver answers the first call and holds every later one.
func TestListenForcedStopCutsAFaultCopy(t *testing.T) {
	arrived := make(chan struct{}, 1)
	var calls atomic.Int32
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			if calls.Add(1) == 1 {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				continue
			}
			select {
			case arrived <- struct{}{}:
			default:
			}
		}
	})
	var stdout syncBuffer
	cmd, errs, u := startListen(t, &stdout, "--forward-to", "http://"+ln.Addr().String()+"/hook", "--fault", "duplicate=1", "--seed", "1")
	resp, err := http.Post(u+"?businessType=CREATE_RECEIVABLE_DOC", "application/json", strings.NewReader(`{"requestId":"r1","businessType":5007,"data":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the sender got %d, want the receiver's 200", resp.StatusCode)
	}
	<-arrived // the copy, held
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	errs.waitLine(t, "stopping: waiting for 1 copy a fault sends after its call's answer to be answered by the receiver (up to ")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	errs.waitLine(t, "stopped at once: 1 copy a fault sends after its call's answer was cut short (see its line)")
	err = errs.exited(t, cmd, 10*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130", err)
	}
	if !strings.Contains(stdout.String(), "receiver got 2 copies, one after the other, answered 200, none (") || !strings.Contains(stdout.String(), "listen was stopped at once") {
		t.Errorf("the call's lines say:\n%s\nwant the copy cut short by the stop", stdout.String())
	}
}
