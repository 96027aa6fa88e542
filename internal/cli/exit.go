package cli

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
)

// exitError carries the exit code an error maps to.
type exitError struct {
	code int
	err  error // nil: already reported, print nothing
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as a usage error (exit 2).
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: ExitUsage, err: err}
}

// usagef formats a usage error (exit 2).
func usagef(format string, args ...any) error {
	return usageErr(fmt.Errorf(format, args...))
}

// errChecksFailed ends a command whose output already said what failed.
var errChecksFailed = &exitError{code: ExitFailed}

// codeOf maps an error to its exit code. Errors cobra returns before a
// command runs (unknown command, flag or argument) are usage errors.
func codeOf(err error, ran bool) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if !ran {
		return ExitUsage
	}
	return ExitFailed
}
