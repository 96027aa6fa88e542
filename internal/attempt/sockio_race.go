//go:build linux && race

package attempt

import (
	"errors"
	"syscall"
)

// sysRead and sysWrite are syscall.Read and syscall.Write under the race
// detector: they tell it that what one goroutine writes to a socket
// happens before what another reads of it (a receiver in the same
// process), which raw calls would hide from it.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func sysWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	errors.As(err, &e)
	return e
}

func sysPeek(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, err := syscall.Recvfrom(int(fd), p, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return max(n, 0), errnoOf(err)
}
