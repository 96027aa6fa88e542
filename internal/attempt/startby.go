package attempt

import (
	"context"
	"time"
)

// A load run (package load) sets the time by which its calls start; an
// attempt reads it before a retry.

// startByKey is the context key of the time after which no call may
// start: a run's --duration end, which binds a delivery's retries too.
type startByKey struct{}

// WithStartBy bounds the calls made under ctx, retries included, to start
// before end (none when end is zero).
func WithStartBy(ctx context.Context, end time.Time) context.Context {
	if end.IsZero() {
		return ctx
	}
	return context.WithValue(ctx, startByKey{}, end)
}

// mayStartAt says whether a call (a retry) may start at t under ctx.
func mayStartAt(ctx context.Context, t time.Time) bool {
	end, ok := ctx.Value(startByKey{}).(time.Time)
	return !ok || t.Before(end)
}
