//go:build !unix

package validate

import "testing"

// cpuTime is not read here (no getrusage): the benchmark reports wall
// time only.
func cpuTime(testing.TB) (int64, bool) { return 0, false }
