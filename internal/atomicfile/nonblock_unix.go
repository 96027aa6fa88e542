//go:build unix

package atomicfile

import "syscall"

// nonblock opens a FIFO without waiting for a reader: with none, the open
// fails (ENXIO) at once rather than block the run, and its signals, for
// good.
const nonblock = syscall.O_NONBLOCK

// noReader says the open failed for want of a FIFO's reader.
func noReader(err error) bool { return err == syscall.ENXIO }
