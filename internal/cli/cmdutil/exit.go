package cmdutil

import (
	"errors"
	"fmt"
)

// Exit codes, documented in the README.
const (
	ExitOK          = 0   // success
	ExitFailed      = 1   // the thing checked failed: invalid payload, non-2xx delivery, lost calls
	ExitUsage       = 2   // bad flag or argument, unreadable input, missing config
	ExitInterrupted = 130 // stopped by Ctrl-C or SIGTERM
	// ExitStdoutClosed is listen stopped because its stdout was closed
	// (listen | head -1): what a shell says of a program SIGPIPE ends,
	// so that pipefail scripts that allow | head read listen alike.
	ExitStdoutClosed = 141
)

// ExitError carries the exit code an error maps to.
type ExitError struct {
	Code int
	Err  error // nil: already reported, print nothing
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// UsageErr marks err as a usage error (exit 2).
func UsageErr(err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// Usagef formats a usage error (exit 2).
func Usagef(format string, args ...any) error {
	return UsageErr(fmt.Errorf(format, args...))
}

// ErrChecksFailed ends a command whose output already said what failed.
var ErrChecksFailed = &ExitError{Code: ExitFailed}

// CodeOf maps an error to its exit code. Errors cobra returns before a
// command runs (unknown command, flag or argument) are usage errors.
func CodeOf(err error, ran bool) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if !ran {
		return ExitUsage
	}
	return ExitFailed
}

// ErrInterrupted ends a command that stopped early because of a signal,
// after it reported what it had done.
var ErrInterrupted = &ExitError{Code: ExitInterrupted}
