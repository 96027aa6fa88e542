package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/reqid"
)

func templates(event string, n int) [][]attempt.Template {
	var pool [][]attempt.Template
	for i := range n {
		body := `{"requestId":"00000000-0000-4000-8000-000000000000","businessType":` + string(rune('0'+i%10)) + `,"no":"D00000000"}`
		pool = append(pool, []attempt.Template{{Event: event, Query: "businessType=" + event, Body: []byte(body), IDOff: len(`{"requestId":"`),
			DocOffs: []int{len(body) - len(`00000000"}`)}}})
	}
	return pool
}

// recorder is a receiver that keeps the requestId and query of every call.
type recorder struct {
	mu    sync.Mutex
	ids   []string
	evs   []string
	calls atomic.Int64
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s, e := reqid.Find(b)
	rc.mu.Lock()
	rc.ids = append(rc.ids, string(b[s:e]))
	rc.evs = append(rc.evs, r.URL.Query().Get("businessType"))
	rc.mu.Unlock()
	rc.calls.Add(1)
}

func TestRunDuplicatesAndShuffleAccounted(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	lanes := [][][]attempt.Template{templates("A", 5), templates("B", 5)}
	feed := NewFeed(lanes, 100, 0.2, true, 7)
	var results atomic.Int64
	st := Run(context.Background(), d, feed.Next, RunOptions{Concurrency: 4}, func(*attempt.Result) { results.Add(1) })

	if st.Sent != 200+st.Duplicates || st.Succeeded != st.Sent || int(rc.calls.Load()) != st.Sent || int(results.Load()) != st.Sent {
		t.Fatalf("stats %+v, receiver got %d, reported %d", st, rc.calls.Load(), results.Load())
	}
	if st.Duplicates < 20 || st.Duplicates > 60 {
		t.Errorf("%d duplicates of 200 at 0.2", st.Duplicates)
	}
	count := map[string]int{}
	for _, id := range rc.ids {
		count[id]++
	}
	dups := 0
	for _, n := range count {
		dups += n - 1
	}
	if len(count) != 200 || dups != st.Duplicates {
		t.Errorf("%d distinct requestIds and %d repeats, want 200 and %d", len(count), dups, st.Duplicates)
	}
	// Shuffled: not A,B,A,B... all the way.
	alternating := true
	for i, e := range rc.evs {
		if (i%2 == 0) != (e == "A") {
			alternating = false
		}
	}
	if alternating {
		t.Error("--shuffle delivered in round order")
	}
}

func TestFeedInOrderWithoutShuffle(t *testing.T) {
	// A scenario group is delivered in order by one worker.
	lane := [][]attempt.Template{{
		{Event: "CREATE", Body: []byte(`{"requestId":"x"}`), IDOff: -1, RequestID: "x"},
		{Event: "AUDIT", Body: []byte(`{"requestId":"y"}`), IDOff: -1, RequestID: "y"},
	}}
	feed := NewFeed([][][]attempt.Template{lane}, 3, 0, false, 1)
	var got []string
	for job := feed.Next(); job != nil; job = feed.Next() {
		if len(job) != 2 {
			t.Fatalf("a scenario job of %d deliveries", len(job))
		}
		for _, r := range job {
			got = append(got, r.Event)
		}
	}
	if strings.Join(got, ",") != "CREATE,AUDIT,CREATE,AUDIT,CREATE,AUDIT" {
		t.Errorf("order %v", got)
	}
}

func TestRunCancelledStillSummarises(t *testing.T) {
	rc := &recorder{}
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rc.calls.Add(1) > 10 {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(block)
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	go func() {
		for done.Load() < 10 {
			time.Sleep(time.Millisecond)
		}
		cancel() // Ctrl-C
	}()
	feed := NewFeed([][][]attempt.Template{templates("A", 3)}, 0, 0, false, 1) // unbounded: only the cancel stops it
	st := Run(ctx, d, feed.Next, RunOptions{Concurrency: 2, Done: &done}, nil)
	if st.Succeeded != 10 || st.Interrupted < 1 || st.Failed != 0 || st.Sent != st.Succeeded+st.Interrupted {
		t.Errorf("after Ctrl-C: %+v", st)
	}
}

// Run's rate and --duration bound a real Deliverer's run, in virtual time
// (the receiver in memory): 20/s for 300 ms starts a call at 0, 50, ...,
// 250 ms, six in all, whatever the machine's load.
func TestRunDurationAndRateBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var answered atomic.Int64
		cl := &http.Client{Transport: inMemory(func(r *http.Request) *http.Response {
			answered.Add(1)
			return &http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, StatusCode: http.StatusOK, Body: http.NoBody, Header: http.Header{}, Request: r}
		})}
		u, _ := url.Parse("http://receiver.test/hook")
		d := &attempt.Deliverer{Client: cl, Target: u, Sleep: (&virtualSleep{}).sleep, Now: time.Now}
		feed := NewFeed([][][]attempt.Template{templates("A", 3)}, 0, 0, false, 1)
		st := Run(t.Context(), d, feed.Next, RunOptions{Concurrency: 4, Rate: 20, Duration: 300 * time.Millisecond}, nil)
		if st.Sent != 6 || st.Succeeded != 6 || answered.Load() != 6 {
			t.Errorf("at 20/s for 300ms: sent %d, succeeded %d, the receiver answered %d; want 6 each", st.Sent, st.Succeeded, answered.Load())
		}
	})
}

// inMemory is a transport that answers each call with answer's response,
// its body read first, as a receiver reads it: no socket, so that a
// synctest bubble's clock moves when the run waits.
type inMemory func(*http.Request) *http.Response

func (f inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return f(r), nil
}

func TestStatsByStatusAndError(t *testing.T) {
	st := NewStats()
	st.Add(&attempt.Result{Request: &attempt.Request{}, OK: true, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}})
	st.Add(&attempt.Result{Request: &attempt.Request{Duplicate: true}, Attempts: []attempt.Attempt{{Status: 503}, {Status: 500}}})
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Kind: attempt.KindRefused}}})
	if st.Sent != 3 || st.Succeeded != 1 || st.Failed != 2 || st.Duplicates != 1 || st.Retries != 1 ||
		st.ByStatus[500] != 1 || st.ByError[attempt.KindRefused] != 1 || st.Latency.Count() != 2 {
		t.Errorf("%+v", st)
	}
}

// TestRequestsPerSecondCountsAnswered: the rate the JSON summary, the
// HTML report, the job summary and --threshold rps give is the text
// summary's, of the calls answered: a refused connection fails at once,
// and counting it would measure how fast the client gives up.
func TestRequestsPerSecondCountsAnswered(t *testing.T) {
	answered := &attempt.Result{Request: &attempt.Request{}, OK: true, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}}
	refused := &attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Kind: attempt.KindRefused}}}
	for _, tt := range []struct {
		name    string
		results []*attempt.Result
		elapsed time.Duration
		want    float64
	}{
		{"all answered", []*attempt.Result{answered, answered, answered, answered}, 2 * time.Second, 2},
		{"half refused", []*attempt.Result{answered, refused, answered, refused}, 2 * time.Second, 1},
		{"none answered", []*attempt.Result{refused, refused}, time.Millisecond, 0},
		{"no time", []*attempt.Result{answered}, 0, 0},
	} {
		st := NewStats()
		for _, r := range tt.results {
			st.Add(r)
		}
		st.Elapsed = tt.elapsed
		if got := st.RequestsPerSecond(); got != tt.want {
			t.Errorf("%s: RequestsPerSecond() = %v, want %v", tt.name, got, tt.want)
		}
		if got := st.Measured()["rps"]; got != tt.want {
			t.Errorf("%s: Measured()[rps] = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRunReusesBodyOnlyWhenTheTransportIsDone(t *testing.T) {
	// A receiver that answers before reading the body: RoundTrip returns
	// while the transport may still be writing it. The worker's buffer
	// must not be rewritten under it (the race detector watches), and
	// every body that arrives whole carries its own requestId.
	big := `{"requestId":"00000000-0000-4000-8000-000000000000","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("read") == "" {
			w.WriteHeader(http.StatusOK)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[string(b[len(`{"requestId":"`):][:36])] = true
		mu.Unlock()
	}))
	defer srv.Close()
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	lanes := [][][]attempt.Template{
		{{{Event: "A", Query: "early=1", Body: []byte(big), IDOff: len(`{"requestId":"`)}}},
		{{{Event: "B", Query: "read=1", Body: []byte(big), IDOff: len(`{"requestId":"`)}}},
	}
	feed := NewFeed(lanes, 10, 0, false, 1)
	// A connection the server closes after an early answer can fail the
	// next call on it (no retries here): count the reading calls that
	// succeeded, each of which must have carried its own requestId.
	read := 0
	st := Run(context.Background(), d, feed.Next, RunOptions{Concurrency: 1}, func(res *attempt.Result) {
		if res.Request.Event == "B" && res.OK {
			read++
		}
	})
	mu.Lock()
	defer mu.Unlock()
	if st.Sent != 20 || read < 5 || len(seen) != read {
		t.Errorf("sent %d, %d reading calls answered, %d distinct requestIds read whole; want 20, at least 5, and one id each",
			st.Sent, read, len(seen))
	}
}

func TestRunTimeoutPerAttempt(t *testing.T) {
	// A run's workers reuse one deadline from attempt to attempt: a timed
	// out attempt must not leave the next one dead on arrival.
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Query().Get("slow") != "" {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	// The time limit only the slow calls reach: generous, so that a fast
	// call on a busy machine stays well inside it.
	c, _ := envClient(attempt.ClientOptions{Timeout: time.Second, Concurrency: 1})
	u, _ := url.Parse(srv.URL)
	d := &attempt.Deliverer{Client: c, Target: u}
	body := []byte(`{"requestId":"00000000-0000-4000-8000-000000000000"}`)
	lanes := [][][]attempt.Template{
		{{{Event: "SLOW", Query: "slow=1", Body: body, IDOff: len(`{"requestId":"`)}}},
		{{{Event: "FAST", Query: "fast=1", Body: body, IDOff: len(`{"requestId":"`)}}},
	}
	feed := NewFeed(lanes, 3, 0, false, 1)
	var mu sync.Mutex
	kinds := map[string]int{}
	st := Run(context.Background(), d, feed.Next, RunOptions{Concurrency: 1}, func(res *attempt.Result) {
		mu.Lock()
		defer mu.Unlock()
		kinds[res.Request.Event+" "+res.Last().Kind]++
	})
	if st.Succeeded != 3 || kinds["SLOW "+attempt.KindTimeout] != 3 || kinds["FAST "] != 3 {
		t.Errorf("stats %+v, outcomes %v", st, kinds)
	}
}

func TestRunOptionsInFlight(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		o    RunOptions
		want int
	}{
		{RunOptions{Concurrency: 4, MaxConcurrency: 1000}, 4},
		{RunOptions{Concurrency: 4, Rate: 50, MaxConcurrency: 100}, 100},
		{RunOptions{Concurrency: 8, Rate: 50, MaxConcurrency: 2}, 8},
	} {
		if got := tt.o.InFlight(); got != tt.want {
			t.Errorf("%+v.InFlight() = %d, want %d", tt.o, got, tt.want)
		}
	}
}

// --shuffle mixes a scenario's events, so a document's void may go out
// before its create; a run cut short (--duration, Ctrl-C) then sent the
// void alone. Each document is counted by the first of its calls to go
// out, whichever event that is: at every point of the run the documents
// counted are the distinct documents the calls so far carried.
func TestFeedShuffledScenarioCountsEachDocumentByItsFirstCall(t *testing.T) {
	const docs = 200
	var lane [][]attempt.Template
	for i := range docs {
		c, v := fmt.Sprintf("c%d", i), fmt.Sprintf("v%d", i)
		lane = append(lane, []attempt.Template{
			{Event: "CREATE", Body: []byte(`{"requestId":"` + c + `"}`), IDOff: -1, RequestID: c},
			{Event: "ABANDON", Body: []byte(`{"requestId":"` + v + `"}`), IDOff: -1, RequestID: v},
		})
	}
	feed := NewFeed([][][]attempt.Template{lane}, docs, 0, true, 3)
	seen := map[string]bool{}
	counted, voidFirst, calls := 0, 0, 0
	for job := feed.Next(); job != nil; job = feed.Next() {
		for _, r := range job {
			calls++
			doc := r.RequestID[1:]
			if !seen[doc] && r.Event == "ABANDON" {
				voidFirst++
			}
			seen[doc] = true
			if r.Document {
				counted++
			}
			if counted != len(seen) {
				t.Fatalf("after %d calls (%s of document %s): %d documents counted, %d carried", calls, r.Event, doc, counted, len(seen))
			}
		}
	}
	if calls != 2*docs || counted != docs {
		t.Errorf("%d calls, %d documents counted; want %d and %d", calls, counted, 2*docs, docs)
	}
	if voidFirst == 0 {
		t.Error("no void went out before its create: the test shuffles nothing")
	}
}

// --duplicate re-delivers a call a little later; --shuffle mixes a window
// that may hold both the call and its re-delivery, and must not send the
// re-delivery first: the first of the two to go out is the delivery, the
// one that counts the document, and the later one the duplicate, so a run
// cut short at any point counts what the receiver got.
func TestFeedShuffledDuplicatesFollowTheirCall(t *testing.T) {
	lanes := [][][]attempt.Template{templates("A", 50), templates("B", 50)}
	feed := NewFeed(lanes, 200, 0.3, true, 3)
	seen := map[string]bool{}
	docs, dups, calls := 0, 0, 0
	for job := feed.Next(); job != nil; job = feed.Next() {
		for _, r := range job {
			calls++
			if r.Duplicate != seen[r.RequestID] {
				t.Fatalf("call %d (%s): duplicate=%v, its requestId seen before: %v", calls, r.RequestID, r.Duplicate, seen[r.RequestID])
			}
			if r.Document {
				docs++
			}
			if r.Duplicate {
				dups++
			}
			seen[r.RequestID] = true
		}
	}
	if docs != 400 || calls != docs+dups || dups < 60 {
		t.Errorf("%d calls: %d documents, %d duplicates; want 400 documents and about 120 duplicates", calls, docs, dups)
	}
}
