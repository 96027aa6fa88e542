package check

import "time"

// The defaults of a run that the CLI's flags and package whsimtest share,
// so that `whsim check` and a receiver's `go test` grade alike.
const (
	// DefaultTimeout is the time limit of one attempt (--timeout). 10s:
	// --latency-budget already judges a slow receiver, so the timeout only
	// has to tell a slow answer from none, and 10s is a common sender's
	// own limit (GitHub's).
	DefaultTimeout = 10 * time.Second
	// DefaultLoadCount and DefaultLoadConcurrency are the load check's
	// calls and calls in flight at once (--load-count,
	// --load-concurrency).
	DefaultLoadCount       = 300
	DefaultLoadConcurrency = 16
)
