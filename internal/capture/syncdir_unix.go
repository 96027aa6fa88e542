//go:build unix

package capture

import (
	"errors"
	"os"
	"syscall"
)

// syncDir fsyncs the directory dir, so that the name of a file just
// created in it survives a crash. A file system that cannot fsync a
// directory (EINVAL: some network and FUSE ones) keeps its names its own
// way: not an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}
