package htmlreport

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"

	"github.com/whsim/whsim/internal/testnet"
)

// mayHaveBeenTaken matches each way a row can say the call may have been
// taken: net/http's path's error ("the receiver may hold it"), the fast
// path's ("the receiver may have taken it") and attempt.TakenNote's.
var mayHaveBeenTaken = regexp.MustCompile(`may hold it|may have taken it|may have been taken`)

// rowText is a failed call's row as the page writes it (page.html).
func rowText(f failure) string {
	s := f.Kind
	if f.Error != "" {
		s += ": " + f.Error
	}
	if f.Taken != "" {
		s += " " + f.Taken
	}
	return s
}

// closesSecond is a receiver on raw TCP that answers the first call on
// each connection, keeping it alive, and closes the connection on the
// second call, unanswered, once it has read it.
func closesSecond(t *testing.T) *url.URL {
	t.Helper()
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for k := 0; ; k++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, req.Body); err != nil || k > 0 {
				return
			}
			if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); err != nil {
				return
			}
		}
	})
	u, err := url.Parse("http://" + ln.Addr().String() + "/hook")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A failed call's row says once that the call may have been taken: the
// error of a call lost on a kept-alive connection says it in its own words
// (net/http's path: "the receiver may hold it"; the fast path's: "the
// receiver may have taken it"), and the row added attempt.TakenNote's
// after them, saying it twice.
func TestSendRecorderRowSaysTakenOnce(t *testing.T) {
	t.Parallel()
	c, err := attempt.NewClient(attempt.ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, NetHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	d := &attempt.Deliverer{Client: c, Target: closesSecond(t)}
	var lost attempt.Attempt
	for k := range 2 {
		res := d.Deliver(context.Background(), &attempt.Request{Body: []byte(`{}`)})
		lost = res.Last()
		if k == 0 && lost.Status != 200 {
			t.Fatalf("the first call: %+v, want 200", lost)
		}
	}
	if lost.Status != 0 || attempt.TakenNote(lost) == "" {
		t.Fatalf("the second call: %+v, want it lost after it went out", lost)
	}
	for _, tc := range []struct {
		name string
		a    attempt.Attempt
	}{
		{"net/http's path, a real call", lost},
		{"the fast path", attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true, EndedAfterSent: true,
			Err: `Post "http://127.0.0.1:1/hook": the receiver closed the kept-alive connection as the call went out (the receiver may have taken it: not resent by the transport)`}},
		{"net/http's path, the transport about to send it again", attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true, EndedAfterSent: true,
			Err: `Post "http://127.0.0.1:1/hook": EOF after the call went out, before an answer (the receiver may hold it: not resent by the transport)`}},
		{"a new connection reset", attempt.Attempt{Kind: attempt.KindReset, EndedAfterSent: true,
			Err: `Post "http://127.0.0.1:1/hook": read tcp 127.0.0.1:2->127.0.0.1:1: read: connection reset by peer`}},
	} {
		r := &SendRecorder{}
		r.Observe(&attempt.Result{Request: &attempt.Request{Seq: 1, Event: "E"}, Attempts: []attempt.Attempt{tc.a}})
		if len(r.failures) != 1 {
			t.Fatalf("%s: failures %+v", tc.name, r.failures)
		}
		row := rowText(r.failures[0])
		if n := len(mayHaveBeenTaken.FindAllString(row, -1)); n != 1 {
			t.Errorf("%s: the row says %d times that the call may have been taken, want once: %s", tc.name, n, row)
		}
		if tc.a.ClosedAsSent && !strings.Contains(row, "kept-alive connection") {
			t.Errorf("%s: the row does not say the call went out on a kept-alive connection: %s", tc.name, row)
		}
	}
}
