package receiver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// 64 concurrent senders, 20,000 calls over loopback: every call answered
// 2xx is in the capture file exactly once, body intact, and was observed
// with its own body; also with Config.Recycle, where a body's buffer given
// back too early would show as another call's bytes. Bounded in count; no
// timing is asserted.
func TestLoadNoLossNoDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("load test; runs without -short")
	}
	for _, recycle := range []bool{false, true} {
		calls := int64(20_000)
		if recycle {
			calls = 5_000 // enough to reuse every buffer many times over
		}
		t.Run(fmt.Sprintf("recycle=%v", recycle), func(t *testing.T) { loadNoLossNoDuplicates(t, recycle, calls) })
	}
}

func loadNoLossNoDuplicates(t *testing.T, recycle bool, calls int64) {
	const senders = 64
	path := filepath.Join(t.TempDir(), "load.ndjson")
	f, _, err := capture.OpenFile(path, capture.SyncInterval)
	if err != nil {
		t.Fatal(err)
	}
	var observedN atomic.Int64
	observed := map[string]bool{} // bodies as Observe saw them; Observe runs on one goroutine
	var badObserved []string
	rcv := New(Config{Capture: f, Checker: fakeChecker{}, Queue: 256, Recycle: recycle, Observe: func(c *Call) {
		observedN.Add(1)
		if b := string(c.Body); c.Record.Body != b || observed[b] {
			badObserved = append(badObserved, fmt.Sprintf("body %q, record's %q", b, c.Record.Body))
		} else {
			observed[b] = true
		}
	}})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders, MaxConnsPerHost: senders}}
	var next atomic.Int64
	var acked sync.Map // body -> true, for 2xx answers
	var ackedN, failed atomic.Int64
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > calls {
					return
				}
				body := fmt.Sprintf(`{"requestId":"%08d","businessType":5007,"data":{"n":"收款 %d"}}`, i, i)
				resp, err := client.Post(s.URL()+"/?businessType=CREATE_RECEIVABLE_DOC", "application/json", strings.NewReader(body))
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					acked.Store(body, true)
					ackedN.Add(1)
				}
			}
		})
	}
	wg.Wait()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rcv.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	client.CloseIdleConnections()

	recs := readAll(t, path)
	seen := map[string]bool{}
	dups := 0
	for _, r := range recs {
		b, _ := r.RequestBody()
		if seen[string(b)] {
			dups++
		}
		seen[string(b)] = true
	}
	lost, unobserved := 0, 0
	acked.Range(func(k, _ any) bool {
		if !seen[k.(string)] {
			lost++
		}
		if !observed[k.(string)] {
			unobserved++
		}
		return true
	})
	if len(badObserved) > 0 || unobserved > 0 {
		t.Errorf("%d acknowledged calls not observed with their body; %d observed wrong or twice, first: %v", unobserved, len(badObserved), badObserved[:min(1, len(badObserved))])
	}
	t.Logf("%d calls: %d acknowledged 2xx, %d transport errors, %d records, %d lost, %d duplicated, %d observed",
		calls, ackedN.Load(), failed.Load(), len(recs), lost, dups, observedN.Load())
	if lost != 0 || dups != 0 || int64(len(recs)) != ackedN.Load() || ackedN.Load() != calls || observedN.Load() != calls {
		t.Errorf("lost %d, duplicated %d, records %d, acknowledged %d, observed %d; want 0, 0 and %d each",
			lost, dups, len(recs), ackedN.Load(), observedN.Load(), calls)
	}
}
