//go:build !unix

package atomicfile

// nonblock: no FIFOs to wait on here.
const nonblock = 0

func noReader(error) bool { return false }
