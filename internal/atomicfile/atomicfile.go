// Package atomicfile writes a file whole or not at all: a reader polling
// for it never sees half of it, and a failed write leaves no partial file
// behind (nor replaces one that was there).
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write calls write with a temporary file in path's directory and, if it
// and closing the file succeed, gives the file perm (as is: the umask does
// not apply) and renames it to path. On any failure the temporary file is
// removed and path is left as it was.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	// The same directory, so that the rename stays on one file system.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".whsim-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
