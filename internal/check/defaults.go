package check

import "github.com/whsim/whsim/internal/attempt"

// The defaults of a run that the CLI's flags and package whsimtest share,
// so that `whsim check` and a receiver's `go test` grade alike.
const (
	// DefaultTimeout is the time limit of one attempt (--timeout), the
	// same for check as for every command that delivers.
	DefaultTimeout = attempt.DefaultTimeout
	// DefaultLoadCount and DefaultLoadConcurrency are the load check's
	// calls and calls in flight at once (--load-count,
	// --load-concurrency).
	DefaultLoadCount       = 300
	DefaultLoadConcurrency = 16
)
