package sendout

import (
	"context"
	"encoding/json"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/term"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A delivery that Ctrl-C stops in its backoff made only the calls the
// receiver got: the attempt it was waiting for is no retry in the text
// line, the JSON (plain and -v) and the JUnit case alike.
func TestInterruptedInTheBackoffReport(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(503)
	}))
	defer srv.Close()
	c, err := attempt.NewClient(attempt.ClientOptions{Timeout: 2 * time.Second, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL + "/hook")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waits := 0
	d := &attempt.Deliverer{Client: c, Target: u, Retries: 5, Backoff: attempt.DefaultBackoff(func() float64 { return 1 }),
		Now: func() time.Time { return time.Unix(1700000000, 0) },
		Sleep: func(ctx context.Context, _ time.Duration) error {
			if waits++; waits == 2 {
				cancel() // Ctrl-C in the second backoff
			}
			return ctx.Err()
		}}
	res := d.Deliver(ctx, &attempt.Request{Event: "E", RequestID: "id-1", Query: "businessType=E", Body: []byte(`{}`)})
	if got := calls.Load(); got != 2 || res.Tries() != 2 {
		t.Fatalf("receiver got %d calls, result says %d tries; want 2 and 2", got, res.Tries())
	}
	line := string((*delivery)(res).AppendText(nil, &term.Style{}))
	if !strings.Contains(line, "--- interrupted  after 2 attempts, in the backoff after a 503: its retry not made\n") {
		t.Errorf("text line %q", line)
	}
	var j struct {
		ErrorKind string            `json:"errorKind"`
		Attempts  []json.RawMessage `json:"attempts"`
	}
	if err := json.Unmarshal(appendResultJSON(nil, res, false), &j); err != nil || j.ErrorKind != attempt.KindInterrupted || len(j.Attempts) != 2 {
		t.Errorf("JSON %s: kind %q, %d attempts (%v); want interrupted, 2", appendResultJSON(nil, res, false), j.ErrorKind, len(j.Attempts), err)
	}
	var v struct {
		Attempts []json.RawMessage `json:"attempts"`
	}
	if err := json.Unmarshal(appendResultJSON(nil, res, true), &v); err != nil || len(v.Attempts) != 2 {
		t.Errorf("-v JSON has %d attempts (%v), want 2", len(v.Attempts), err)
	}
	tc := (*delivery)(res).JUnit()
	if strings.Contains(tc.Detail, "attempt 3") {
		t.Errorf("JUnit detail lists an attempt never made:\n%s", tc.Detail)
	}
	// Neither succeeded nor failed, as send's summary counts it: a case in
	// error, never a failure of the receiver.
	if tc.Error == "" || tc.Failure != "" {
		t.Errorf("JUnit case error %q, failure %q: want an error, no failure", tc.Error, tc.Failure)
	}
}
