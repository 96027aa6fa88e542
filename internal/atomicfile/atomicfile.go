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
//
// A path that is neither a regular file nor absent (a device such as
// /dev/stdout or /dev/null, a FIFO, a symlink) is written through in place
// instead: renaming over it would replace the device or the link with a
// regular file (as root, /dev/stdout itself) and never write where it
// leads.
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return writeThrough(path, perm, write)
	}
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

// writeThrough writes to what path is or leads to, as a shell's > does.
func writeThrough(path string, perm os.FileMode, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
