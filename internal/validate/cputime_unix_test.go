//go:build unix

package validate

import (
	"syscall"
	"testing"
)

// cpuTime is the process's user and system time so far, in nanoseconds.
func cpuTime(tb testing.TB) (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
