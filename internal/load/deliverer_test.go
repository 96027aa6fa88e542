package load

import (
	"context"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// virtualSleep records the waits instead of sleeping.
type virtualSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (v *virtualSleep) sleep(ctx context.Context, d time.Duration) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.waits = append(v.waits, d)
	return ctx.Err()
}

func newTestDeliverer(t *testing.T, srv *httptest.Server, retries int, vs *virtualSleep) *attempt.Deliverer {
	t.Helper()
	c, err := envClient(attempt.ClientOptions{Timeout: 2 * time.Second, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL + "/hook")
	return &attempt.Deliverer{Client: c, Target: u, Retries: retries, Backoff: attempt.DefaultBackoff(func() float64 { return 1 }),
		Sleep: vs.sleep, Now: func() time.Time { return time.Unix(1700000000, 0) }}
}
