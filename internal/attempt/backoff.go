package attempt

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff decides how long to wait before a retry: exponential from Base,
// capped at Max, with equal jitter so that many senders retrying at once do
// not arrive together; a Retry-After from the receiver wins, capped at
// MaxRetryAfter so that a run stays bounded.
type backoff struct {
	Base, Max     time.Duration
	MaxRetryAfter time.Duration
	// Jitter returns a value in [0,1); tests fix it.
	Jitter func() float64
}

// DefaultBackoff starts at 200ms and caps at 10s; Retry-After is honoured
// up to a minute.
func DefaultBackoff(jitter func() float64) backoff {
	return backoff{Base: 200 * time.Millisecond, Max: 10 * time.Second, MaxRetryAfter: time.Minute, Jitter: jitter}
}

// Delay is the wait before retry number n (1 for the first retry).
// retryAfter is the receiver's wish, or 0.
func (b backoff) Delay(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, b.MaxRetryAfter)
	}
	d := b.Base
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	// Equal jitter: half fixed, half random, so the wait keeps growing.
	j := 0.5
	if b.Jitter != nil {
		j = b.Jitter()
	}
	return d/2 + time.Duration(j*float64(d/2))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// sleepContext waits d or until ctx is done; it is the real clock's sleep.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
