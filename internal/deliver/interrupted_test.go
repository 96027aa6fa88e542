package deliver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/report"
)

// A delivery that Ctrl-C stops in its backoff made only the calls the
// receiver got: the attempt it was waiting for is no retry, in the stats,
// the text line, the JSON and the JUnit case alike.
func TestInterruptedInTheBackoffCountsOnlyCallsMade(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(503)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := attempt.NewClient(attempt.ClientOptions{Timeout: 2 * time.Second, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL + "/hook")
	d := &attempt.Deliverer{Client: c, Target: u, Retries: 5, Backoff: attempt.DefaultBackoff(func() float64 { return 1 })}
	waits := 0
	d.Sleep = func(ctx context.Context, _ time.Duration) error {
		if waits++; waits == 2 {
			cancel() // Ctrl-C in the second backoff
		}
		return ctx.Err()
	}
	res := d.Deliver(ctx, &attempt.Request{Event: "E", RequestID: "id-1", Query: "businessType=E", Body: []byte(`{}`)})
	if got := calls.Load(); got != 2 || res.Tries() != 2 {
		t.Fatalf("receiver got %d calls, result says %d tries; want 2 and 2", got, res.Tries())
	}
	st := load.NewStats()
	st.Add(res)
	if st.Interrupted != 1 || st.Retries != 1 || st.Sent != 1 {
		t.Errorf("stats sent %d interrupted %d retries %d, want 1, 1, 1", st.Sent, st.Interrupted, st.Retries)
	}
	line := string((*Case)(res).AppendText(nil, &report.Style{}))
	if !strings.Contains(line, "--- interrupted  after 2 attempts, in the backoff") {
		t.Errorf("text line %q", line)
	}
	var j struct {
		ErrorKind string            `json:"errorKind"`
		Attempts  []json.RawMessage `json:"attempts"`
	}
	if err := json.Unmarshal(appendResultJSON(nil, res), &j); err != nil || j.ErrorKind != attempt.KindInterrupted || len(j.Attempts) != 2 {
		t.Errorf("JSON %s: kind %q, %d attempts (%v); want interrupted, 2", appendResultJSON(nil, res), j.ErrorKind, len(j.Attempts), err)
	}
	if got := len(resultJSON(res).Attempts); got != 2 {
		t.Errorf("JSON() has %d attempts, want 2", got)
	}
	if tc := (*Case)(res).JUnit(); strings.Contains(tc.Detail, "attempt 3") {
		t.Errorf("JUnit detail lists an attempt never made:\n%s", tc.Detail)
	}
}
