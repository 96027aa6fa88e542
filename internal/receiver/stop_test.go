package receiver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// hookRecorder is a memRecorder that runs hook as it records a call.
type hookRecorder struct {
	memRecorder
	hook func()
}

func (h *hookRecorder) Write(r *capture.Record) (int64, error) {
	if h.hook != nil {
		h.hook()
	}
	return h.memRecorder.Write(r)
}

// A forced stop (a second Ctrl-C, the grace over) ends the calls'
// contexts with its cause, then closes their connections, at any moment
// of a handler's run. The call's line says what the sender got, whatever
// the moment: a stop that comes after the handler's last look at its
// context and before its answer is written lets the answer go whole
// before the connection closes (on main the connection was closed under
// it: the sender got nothing, the line said answered); a stop that cut
// the call before that look closes the connection first (on main the
// answer could still go out while the line said unanswered). The stop is
// made at each moment through a seam, as ServeGrace makes it.
func TestForcedStopAroundTheAnswerIsTold(t *testing.T) {
	const call = "POST /hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	for _, tt := range []struct {
		name       string
		whileRec   bool // the stop comes while the call is recorded, before the look
		status     int  // what the sender got, 0 for nothing
		unanswered bool
	}{
		{"between the look and the write", false, 200, false},
		{"before the look", true, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec, obs := &hookRecorder{}, &observed{}
			rcv := New(Config{Capture: rec, Checker: fakeChecker{}, Observe: obs.observe})
			s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			var conn *watchedConn
			stop := func() {
				s.cut(errStoppedAtOnce)
				conn.Close() // as http.Server.Close closes each connection
			}
			rcv.beforeAnswer = func(req *http.Request) {
				conn = req.Context().Value(connKey{}).(*watchedConn)
				if !tt.whileRec {
					stop()
				}
			}
			if tt.whileRec {
				// Only the cause: the connections are closed after it,
				// and the handler looks in between.
				rec.hook = func() { s.cut(errStoppedAtOnce) }
			}
			c, cancel, served := serveAndDial(t, s)
			if _, err := io.WriteString(c, call); err != nil {
				t.Fatal(err)
			}
			got := 0
			br := bufio.NewReader(c)
			if resp, err := http.ReadResponse(br, nil); err == nil {
				got = resp.StatusCode
				io.Copy(io.Discard, resp.Body)
			}
			if rest, err := io.ReadAll(br); len(rest) > 0 || err != nil {
				t.Errorf("after the answer: %q, %v; want the connection closed", rest, err)
			}
			cancel()
			<-served
			rcv.Close()
			if got != tt.status {
				t.Errorf("the sender got %d, want %d", got, tt.status)
			}
			if len(obs.calls) != 1 || len(rec.recs) != 1 {
				t.Fatalf("%d calls, %d records; want 1 each", len(obs.calls), len(rec.recs))
			}
			cl := obs.calls[0]
			if hasRule(cl, ruleUnanswered) != tt.unanswered || hasRule(cl, ruleSenderGone) {
				t.Errorf("findings %+v, want %s: %v, and not %s", cl.Findings, ruleUnanswered, tt.unanswered, ruleSenderGone)
			}
			for _, f := range cl.Findings {
				if f.Rule == ruleUnanswered && !strings.HasSuffix(f.Message, "before the answer: the sender did not get the 200") {
					t.Errorf("%s says %q", ruleUnanswered, f.Message)
				}
			}
		})
	}
}

// A call whose handler listen still runs when it closes the Receiver (its
// record's write held past the forced stop's wait for the calls it cut
// short, cutShortWait) is observed: closing waits for it as for a queued
// call. It used to close the queue under it: the call was recorded (or,
// with the capture file closed next, not even that), never printed and not
// counted. The record's write is held where the test sees it held, and let
// go once closing waits for it: events, not a clock.
func TestCloseWaitsForTheCallsInHand(t *testing.T) {
	t.Parallel()
	inWrite, letGo := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(letGo) })
	rec, obs := &hookRecorder{}, &observed{}
	rec.hook = func() { close(inWrite); <-letGo }
	rcv := New(Config{Capture: rec, Checker: fakeChecker{}, Observe: obs.observe})
	rcv.waitingInHand = release
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	defer release() // before the server's Close, which waits for the handler
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		if resp, err := srv.Client().Post(srv.URL+"/?businessType="+ev, "application/json", strings.NewReader(`{}`)); err == nil {
			resp.Body.Close()
		}
	}()
	<-inWrite
	if got := rcv.CloseWithin(make(chan time.Time)); !got.Observed || got.Unrecorded != 0 {
		t.Errorf("CloseWithin = %+v, want every call observed and none unrecorded", got)
	}
	if len(obs.calls) != 1 || len(rec.recs) != 1 {
		t.Fatalf("%d calls observed, %d recorded; want the call in hand, observed and recorded", len(obs.calls), len(rec.recs))
	}
	<-answered
}

// Closing gives up on a call whose record is still being written once
// stuck says so (a capture file on a disk that does not answer), and says
// how many such calls it left: listen must not tell them recorded.
func TestCloseWithinCountsTheCallsNotRecorded(t *testing.T) {
	t.Parallel()
	inWrite, letGo := make(chan struct{}), make(chan struct{})
	rec := &hookRecorder{}
	rec.hook = func() { close(inWrite); <-letGo }
	rcv := New(Config{Capture: rec, Checker: fakeChecker{}})
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	defer close(letGo) // before the server's Close, which waits for the handler
	go func() {
		if resp, err := srv.Client().Post(srv.URL+"/?businessType="+ev, "application/json", strings.NewReader(`{}`)); err == nil {
			resp.Body.Close()
		}
	}()
	<-inWrite
	stuck := make(chan time.Time)
	close(stuck)
	if got := rcv.CloseWithin(stuck); got.Unrecorded != 1 {
		t.Errorf("CloseWithin = %+v, want the call whose record is held counted unrecorded", got)
	}
}

// A stop forced while no handler runs (here an idle HTTP/2 connection,
// which the graceful stop gives a second to take its GOAWAY, holds it) cut
// no call short, and ServeGrace's error says so: listen said "the calls in
// flight were left unanswered" of it.
func TestForcedStopCountsTheCallsItCut(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	rcv := New(Config{Capture: rec, Checker: fakeChecker{}})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	now := make(chan struct{})
	served := make(chan error, 1)
	go func() { served <- s.ServeGrace(ctx, now) }()
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{Protocols: &h2c}}
	defer client.CloseIdleConnections()
	resp, err := client.Post(s.URL()+"/hook?businessType="+ev, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cancel()
	close(now) // the connection, left open, holds the graceful stop
	err = <-served
	rcv.Close()
	if cs, ok := errors.AsType[*CutShort](err); ok && (!errors.Is(err, context.Canceled) || cs.Calls != 0) {
		t.Errorf("ServeGrace = %#v, want a *CutShort of context.Canceled that cut no call", cs)
	} else if !ok && err != nil {
		t.Errorf("ServeGrace = %v, want a *CutShort (or nil: the connection closed first)", err)
	}
	if len(rec.recs) != 1 {
		t.Errorf("%d records, want the call's", len(rec.recs))
	}
}

// A sender that resets its connection mid-body (RST) gets no answer: the
// call's line said "(answered 400)" of it. It is still recorded, with the
// bytes that came, and now flagged as a sender that did not get the 400.
// The sender's reset is an event the handler waits for (its body read).
func TestSenderResetMidBodyIsNotAnswered(t *testing.T) {
	t.Parallel()
	rec := &memRecorder{}
	seen := make(chan *Call, 1)
	rcv := New(Config{Capture: rec, Checker: fakeChecker{}, Observe: func(c *Call) { seen <- c }})
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "POST /hook?businessType="+ev+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"requestId\":"); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetLinger(0) // Close sends RST
	c.Close()
	cl := <-seen
	srv.Close()
	rcv.Close()
	if len(rec.recs) != 1 {
		t.Fatalf("%d records; want the call's", len(rec.recs))
	}
	if !hasRule(cl, ruleSenderGone) {
		t.Errorf("findings %+v, want %s", cl.Findings, ruleSenderGone)
	}
	for _, f := range cl.Findings {
		if strings.Contains(f.Message, "(answered ") {
			t.Errorf("%s says %q of a sender that reset its connection", f.Rule, f.Message)
		}
	}
}
