package check

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// A copy that got no answer was refused by nobody: its reason names the
// lost answer, not a duplicate key or a requestId the receiver keys on,
// which would send the user to fix a store that did nothing wrong.
func TestJudgeDuplicatesNoAnswerIsNoRefusal(t *testing.T) {
	t.Parallel()
	ok := attempt.Attempt{Status: 200}
	closed := attempt.Attempt{Kind: attempt.KindClosed, Err: "EOF", ClosedAsSent: true}
	conflict := attempt.Attempt{Status: 409}
	tests := []struct {
		name        string
		c           Case
		second      attempt.Attempt
		want, never string
	}{
		{"serial, no answer", Case{Copies: 4}, closed, "got no answer", "duplicate key"},
		{"new requestIds serial, no answer", Case{Copies: 4, NewRequestIDs: true}, closed, "got no answer", "not on requestId"},
		{"new requestIds at once, no answer", Case{Copies: 4, NewRequestIDs: true, AtOnce: true}, closed, "got no answer", "not on requestId"},
		{"serial, 409", Case{Copies: 4}, conflict, "not refused as a duplicate key", ""},
		{"new requestIds serial, 409", Case{Copies: 4, NewRequestIDs: true}, conflict, "not on requestId", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.c
			c.Name = "x"
			var results []*attempt.Result
			for i := 0; i < c.Copies; i++ {
				a := ok
				if i == 1 {
					a = tt.second
				}
				results = append(results, &attempt.Result{Attempts: []attempt.Attempt{a}})
			}
			res := judgeDuplicates(&c, results)
			if res.Verdict != Fail {
				t.Fatalf("verdict %s (%s), want FAIL", res.Verdict, res.Reason)
			}
			if !strings.Contains(res.Reason, tt.want) || (tt.never != "" && strings.Contains(res.Reason, tt.never)) {
				t.Errorf("reason %q, want %q and not %q", res.Reason, tt.want, tt.never)
			}
		})
	}
}

// A 408 is the receiver saying it timed out waiting for the call (one
// that closes a kept-alive connection as a call went out on it is made
// again by the transport, and never reaches a reason): its reason says
// so, and that a sender would make the call again.
func TestAnswerSays408IsATimeoutWaitingForTheCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a    attempt.Attempt
		want string
	}{
		{attempt.Attempt{Status: 408}, "got 408 (the receiver timed out waiting for the call"},
		{attempt.Attempt{Status: 500}, "got 500"},
		{attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true}, "on a kept-alive connection the receiver closed as the call went out"},
		{attempt.Attempt{Kind: attempt.KindClosed}, "connection closed"},
	}
	for _, tt := range tests {
		if got := answer(tt.a); !strings.HasPrefix(got, tt.want) && !strings.Contains(got, tt.want) {
			t.Errorf("answer(%+v) = %q, want %q in it", tt.a, got, tt.want)
		}
	}
	if got := answer(attempt.Attempt{Kind: attempt.KindClosed}); strings.Contains(got, "kept-alive") {
		t.Errorf("answer of a call closed on a new connection = %q, names a kept-alive one", got)
	}
}

// A receiver that fails valid calls at random fails a re-delivery or a
// copy the same way, for no reason of its own: its duplicates cases fail,
// and say that it may be that failure, not that it refused a duplicate
// key, raced on a check-then-insert or keyed on requestId, which would
// send its author to a store that did nothing wrong. It was "must be
// accepted again, not refused as a duplicate key" of a 500 every seventh
// call got (found by rv46); and then it said so only where accepts-valid
// had met one of those 500s before the duplicates check began: with
// duplicates run first, or a seed whose accepts-valid calls all fell
// between them, it guessed again (found by ck47). What the answer does
// not say is not guessed, whatever ran before.
func TestDuplicatesOfAReceiverThatFailsAnyCall(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		checks []string
		seed   uint64
	}{
		{"after accepts-valid", []string{acceptsValid, duplicates}, 42},
		{"after accepts-valid, another seed", []string{acceptsValid, duplicates}, 7},
		{"duplicates first", []string{duplicates}, 42},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if n.Add(1)%7 == 3 {
					http.Error(w, "oops", http.StatusInternalServerError)
					return
				}
				w.WriteHeader(http.StatusOK)
			}))
			t.Cleanup(srv.Close)
			cfg := testConfig(t, srv.URL)
			cfg.Checks, cfg.Seed = tt.checks, tt.seed
			_, results, err := run(t, context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			judged := 0
			for _, res := range results {
				if res.Case.Check != duplicates || res.Verdict != Fail {
					continue
				}
				judged++
				for _, guess := range []string{"not refused as a duplicate key", "refused as a duplicate key;", "as by a receiver that checks then inserts", "keyed on the document, not on requestId", "no business meaning"} {
					if strings.Contains(res.Reason, guess) {
						t.Errorf("%s: %q guesses at a cause (%q)", res.Case.Name, res.Reason, guess)
					}
				}
				if !strings.Contains(res.Reason, "or a failure the receiver meets on any call") {
					t.Errorf("%s: %q does not say it may be a failure of any call", res.Case.Name, res.Reason)
				}
			}
			if judged == 0 {
				t.Fatalf("no duplicates case failed: %+v", results)
			}
		})
	}
}
