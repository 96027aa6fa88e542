// Package atomicfile writes a file whole or not at all: a reader polling
// for it never sees half of it, and a failed write leaves no partial file
// behind (nor replaces one that was there).
package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Write calls write with a temporary file in path's directory and, if it
// and closing the file succeed, gives the file perm (as is: the umask does
// not apply) and renames it to path. On any failure the temporary file is
// removed and path is left as it was, and the error names path, not the
// temporary file the user never named.
//
// A path that is a device (/dev/null, /dev/full), a FIFO, or a name of a
// standard stream (/dev/stdout, /dev/fd/2), is written through in place
// instead: renaming over it would replace the device or the link with a
// regular file (as root, /dev/stdout itself) and never write where it
// leads. A symlink to a regular file is still replaced, never followed: a
// link planted where a file of credentials goes gets none of them.
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	if writesThrough(path) {
		return writeThrough(path, perm, write)
	}
	tmp, err := writeTemp(path, perm, write)
	if err != nil {
		return err
	}
	return rename(tmp, path)
}

// File is one file of a set WriteAll writes.
type File struct {
	Path  string
	Perm  os.FileMode
	Write func(io.Writer) error
}

// WriteAll writes files as Write writes each, but renames none into place
// before every one is written: files that belong together (a script and
// the data it loads) are never left part this run's and part an earlier
// one's by a failure or a signal while they are written. On a failure
// before the renames every path is left as it was. The renames come one
// after another at the end; one failing there (rare: the directory is the
// one the temporary files were made in) leaves those before it renamed.
func WriteAll(files []File) (err error) {
	// A directory in a file's place would fail its rename after the
	// files before it were renamed: refused before anything is written.
	for _, f := range files {
		if fi, err := os.Lstat(f.Path); err == nil && fi.IsDir() {
			return &fs.PathError{Op: "open", Path: f.Path, Err: syscall.EISDIR}
		}
	}
	var temps []string // temps[i] is files[i]'s, "" for a path written through
	defer func() {
		if err != nil {
			for _, tmp := range temps {
				if tmp != "" {
					os.Remove(tmp)
				}
			}
		}
	}()
	for _, f := range files {
		if writesThrough(f.Path) {
			if err := writeThrough(f.Path, f.Perm, f.Write); err != nil {
				return err
			}
			temps = append(temps, "")
			continue
		}
		tmp, err := writeTemp(f.Path, f.Perm, f.Write)
		if err != nil {
			return err
		}
		temps = append(temps, tmp)
	}
	for i, tmp := range temps {
		if tmp == "" {
			continue
		}
		if err := rename(tmp, files[i].Path); err != nil {
			temps = temps[i+1:] // renamed, or removed by rename
			return err
		}
	}
	return nil
}

// writeTemp calls write with a temporary file in path's directory and, if
// it and closing the file succeed, gives the file perm (as is: the umask
// does not apply) and returns its name. On any failure the temporary file
// is removed, and the error names path, not the temporary file the user
// never named.
func writeTemp(path string, perm os.FileMode, write func(io.Writer) error) (name string, err error) {
	// The same directory, so that the rename stays on one file system.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".whsim-*.tmp")
	if err != nil {
		return "", notCreated(err, path)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// The write's errors name path too, however it wraps them.
	if err := write(namedWriter{tmp, path}); err != nil {
		return "", err
	}
	if err := tmp.Chmod(perm); err != nil {
		return "", named(err, path)
	}
	if err := tmp.Close(); err != nil {
		return "", named(err, path)
	}
	return tmp.Name(), nil
}

// rename renames the temporary file tmp to path, removing tmp if it
// cannot.
func rename(tmp, path string) error {
	err := os.Rename(tmp, path)
	if err == nil {
		return nil
	}
	os.Remove(tmp)
	// "rename .whsim-1.tmp out.html: ..." says neither what failed nor
	// where: the destination is what the user gave.
	if le, ok := err.(*os.LinkError); ok {
		return &fs.PathError{Op: "write", Path: path, Err: le.Err}
	}
	return err
}

// Creatable says, before a long run, whether Write could later write
// path: a temporary file is created in its directory and removed. A name
// Write writes through (a device, a FIFO, /dev/stdout) is not opened
// here: a FIFO would wait for its reader. A regular file no one may write
// (chmod a-w) is refused: Write's rename would replace it all the same,
// where a shell's > is refused, and a file made read-only was kept from
// being overwritten on purpose.
func Creatable(path string) error {
	if writesThrough(path) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".whsim-*.tmp")
	if err != nil {
		return notCreated(err, path)
	}
	tmp.Close()
	if err := os.Remove(tmp.Name()); err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o222 == 0 {
		return &fs.PathError{Op: "write", Path: path, Err: &ReadOnlyError{Mode: fi.Mode()}}
	}
	return nil
}

// RemoveReplaced removes what Write would have replaced at path (a regular
// file, or a link Write replaces rather than follows), after a Write that
// failed: a report an earlier run left there must not stand as the new
// one. What Write writes through (a device, a FIFO, /dev/stdout) and a
// directory are left; nothing there is no error.
func RemoveReplaced(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.IsDir() || writesThrough(path) {
		return nil
	}
	return os.Remove(path)
}

// namedWriter writes to the temporary file f; its errors name path.
type namedWriter struct {
	f    *os.File
	path string
}

func (w namedWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	return n, named(err, w.path)
}

// notCreated is err, the error of creating the temporary file beside
// path, naming path and saying what failed: a new file in path's
// directory, which Write renames to path. The system's words alone named
// the wrong thing: /proc refuses a new file with "no such file or
// directory", which read as if /proc/version were missing. A directory
// that is itself missing is left to the system's words.
func notCreated(err error, path string) error {
	pe, ok := err.(*fs.PathError)
	if !ok {
		return err
	}
	dir := filepath.Dir(path)
	if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return &fs.PathError{Op: "create", Path: path, Err: &NotCreatedError{Dir: dir, Err: pe.Err}}
}

// ReadOnlyError is a file Creatable refuses to have replaced: no one may
// write it (its mode has no write bit).
type ReadOnlyError struct{ Mode fs.FileMode }

func (e *ReadOnlyError) Error() string {
	return "the file is read-only (" + e.Mode.String() + "): make it writable (chmod u+w) or give another name"
}

func (e *ReadOnlyError) Unwrap() error { return fs.ErrPermission }

// NotCreatedError is why Write cannot write a file: no new file can be
// created in Dir, where it writes one before renaming it into place.
type NotCreatedError struct {
	Dir string
	Err error
}

func (e *NotCreatedError) Error() string {
	return "no new file can be created in " + e.Dir + " (the system said: " + e.Err.Error() + ")"
}

func (e *NotCreatedError) Unwrap() error { return e.Err }

// named is err, an error of the temporary file, naming path instead.
func named(err error, path string) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// InPlace says whether Write writes path through in place (a device, a
// FIFO, a standard stream) rather than replacing it whole: what is
// written there cannot be taken back by a later Write.
func InPlace(path string) bool { return writesThrough(path) }

// writesThrough says whether path is a device, a FIFO or a socket, a
// symlink to one, or a symlink through a process's fd directory (Linux's
// /dev/stdout is /proc/self/fd/1, a link to whatever stdout is, a file
// included).
func writesThrough(path string) bool {
	fi, err := os.Lstat(path)
	switch {
	case err != nil || fi.Mode().IsRegular() || fi.IsDir():
		return false
	case fi.Mode()&os.ModeSymlink == 0:
		return true
	}
	if to, err := os.Stat(path); err == nil && !to.Mode().IsRegular() && !to.IsDir() {
		return true
	}
	for range 8 { // a chain of links, bounded as the kernel bounds it
		if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil && fdDir(dir) {
			return true
		}
		to, err := os.Readlink(path)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		if fi, err := os.Lstat(to); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return false
		}
		path = to
	}
	return false
}

// fdDir says whether dir is a process's directory of open files,
// /proc/<pid>/fd.
func fdDir(dir string) bool {
	rest, ok := strings.CutPrefix(dir, "/proc/")
	pid, ok2 := strings.CutSuffix(rest, "/fd")
	return ok && ok2 && pid != "" && strings.Trim(pid, "0123456789") == ""
}

// writeThrough writes to what path is or leads to, as a shell's > does.
func writeThrough(path string, perm os.FileMode, write func(io.Writer) error) error {
	f, err := OpenInPlace(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// OpenInPlace opens path to write to it in place (os.OpenFile's flag and
// perm), but a FIFO that no process has open for reading is an error at
// once, saying so: the open would wait for a reader, and the run, ended,
// with it, deaf to SIGTERM (found by hunt48: --junit or
// GITHUB_STEP_SUMMARY naming such a FIFO hung whsim after its run). A
// FIFO being read is written as before, as are devices and files.
func OpenInPlace(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|nonblock, perm)
	if pe, ok := err.(*fs.PathError); ok && noReader(pe.Err) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errNoReader{}}
	}
	return f, err
}

// errNoReader is the open of a FIFO no process reads.
type errNoReader struct{}

func (errNoReader) Error() string {
	return "a FIFO no process is reading: nothing would read what is written"
}
