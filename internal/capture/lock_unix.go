//go:build unix

package capture

import (
	"errors"
	"os"
	"syscall"
)

// lockWriter takes the capture file's exclusive lock without waiting: two
// listens appending to one file interleave their records, the offsets each
// one's File keeps go wrong, and the inspector of one shows the other's
// calls as its own. The lock goes with the descriptor (flock), so a
// crashed listen leaves none behind; readers take no lock and are never
// held up.
func lockWriter(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}
