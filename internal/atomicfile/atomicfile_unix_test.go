//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A path that is a FIFO, a device or a standard stream's name is written
// through, never replaced by a regular file: --junit /dev/stdout, run as
// root, once turned /dev/stdout into a file, and --report /dev/full said
// "report written" and exited 0 (the rename replaced the device).
func TestWriteThrough(t *testing.T) {
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	t.Run("a standard stream by name", func(t *testing.T) {
		// /dev/stdout when stdout is a file: a link through /proc/self/fd.
		f, err := os.Create(filepath.Join(t.TempDir(), "stdout.txt"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		path := fmt.Sprintf("/dev/fd/%d", f.Fd())
		if _, err := os.Lstat(path); err != nil {
			t.Skip("no /dev/fd here:", err)
		}
		if err := Write(path, 0o600, write); err != nil {
			t.Fatalf("Write(%s) = %v", path, err)
		}
		if b, _ := os.ReadFile(f.Name()); string(b) != "new" {
			t.Errorf("the stream's file holds %q, want %q", b, "new")
		}
	})
	t.Run("link to a FIFO", func(t *testing.T) {
		dir := t.TempDir()
		fifo, link := filepath.Join(dir, "out.fifo"), filepath.Join(dir, "link")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO here:", err)
		}
		if err := os.Symlink(fifo, link); err != nil {
			t.Fatal(err)
		}
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := Write(link, 0o600, write); err != nil {
			t.Fatalf("Write = %v", err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
		}
		b := make([]byte, 16)
		if n, _ := r.Read(b); string(b[:n]) != "new" {
			t.Errorf("the FIFO's reader got %q, want %q", b[:n], "new")
		}
	})
	t.Run("link to a regular file", func(t *testing.T) {
		// Replaced, never followed: a link planted where a file of
		// credentials goes must get none of them.
		dir := t.TempDir()
		target, link := filepath.Join(dir, "target.txt"), filepath.Join(dir, "link.txt")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := Write(link, 0o600, write); err != nil {
			t.Fatalf("Write = %v", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "old" {
			t.Errorf("the link's target got %q", b)
		}
		if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v %v, want a regular file", link, fi.Mode(), err)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "out.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO here:", err)
		}
		// A reader that does not block opening: Write's open then finds
		// it, and "new" fits in the pipe's buffer.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := Write(fifo, 0o600, write); err != nil {
			t.Fatalf("Write = %v", err)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
		b := make([]byte, 16)
		if n, _ := r.Read(b); string(b[:n]) != "new" {
			t.Errorf("the FIFO's reader got %q, want %q", b[:n], "new")
		}
	})
	// A FIFO no process reads: the open waited for a reader, for good
	// and deaf to SIGTERM (--junit fifo, GITHUB_STEP_SUMMARY=fifo hung
	// whsim; found by hunt48). An error at once, naming the path; on the
	// old code this call never returns.
	t.Run("fifo without a reader", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "out.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO here:", err)
		}
		err := Write(fifo, 0o600, write)
		if err == nil || !strings.Contains(err.Error(), fifo+": a FIFO no process is reading") {
			t.Fatalf("Write = %v, want the FIFO without a reader named", err)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
		if f, err := OpenInPlace(fifo, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
			t.Fatal("OpenInPlace opened a FIFO no process reads")
		}
	})
}

// RemoveReplaced removes what a failed Write would have replaced, a file
// or a link (never what the link points to), and leaves what Write writes
// through and a directory.
func TestRemoveReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file, link, target, sub := filepath.Join(dir, "r.html"), filepath.Join(dir, "link.html"), filepath.Join(dir, "target"), filepath.Join(dir, "sub")
	for _, name := range []string{file, target} {
		if err := os.WriteFile(name, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		gone bool
	}{
		{file, true}, {link, true}, {sub, false}, {os.DevNull, false}, {filepath.Join(dir, "none"), true},
	} {
		if err := RemoveReplaced(tc.path); err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		_, err := os.Lstat(tc.path)
		if gone := os.IsNotExist(err); gone != tc.gone {
			t.Errorf("%s: gone %v, want %v", tc.path, gone, tc.gone)
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}

// A path whose directory takes no new file says so, naming the path and
// the directory, in Creatable and Write alike: /proc refuses one with
// ENOENT, and "open /proc/version: no such file or directory" read as if
// the file were missing. A missing directory keeps the system's words.
func TestNotCreatedSaysWhere(t *testing.T) {
	if _, err := os.Stat("/proc/version"); err != nil {
		t.Skip("no /proc/version: not Linux")
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
	for _, tt := range []struct {
		name, path, want string
		in               string // the directory NotCreatedError names, "" for none
	}{
		{"a file of /proc", "/proc/version", "create /proc/version: no new file can be created in /proc (the system said: no such file or directory)", "/proc"},
		{"a new name in /proc", "/proc/run.xml", "create /proc/run.xml: no new file can be created in /proc (the system said: no such file or directory)", "/proc"},
		{"a missing directory", "/proc/nonexistent-dir/run.xml", "open /proc/nonexistent-dir/run.xml: no such file or directory", ""},
	} {
		for what, err := range map[string]error{"Creatable": Creatable(tt.path), "Write": Write(tt.path, 0o644, write)} {
			if err == nil || err.Error() != tt.want {
				t.Errorf("%s: %s = %v, want %q", tt.name, what, err, tt.want)
			}
			nc, ok := errors.AsType[*NotCreatedError](err)
			if ok != (tt.in != "") || ok && nc.Dir != tt.in {
				t.Errorf("%s: %s = %#v, want a NotCreatedError in %q", tt.name, what, err, tt.in)
			}
			if !errors.Is(err, syscall.ENOENT) {
				t.Errorf("%s: %s = %v, want it to wrap the system's error", tt.name, what, err)
			}
		}
	}
}

// A regular file no one may write is refused before the run: Write's
// rename replaced it all the same (as root too), where a shell's > is
// refused. Its mode bits decide, not the caller's rights, so the test
// holds as root. A writable one, or a new name, may be written.
func TestCreatableRefusesReadOnly(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name     string
		mode     os.FileMode // 0: no file there
		readOnly bool
	}{
		{"read-only", 0o444, true},
		{"no bits at all", 0o000, true},
		{"writable by its owner only", 0o644, false},
		{"writable by its group only", 0o464, false},
		{"a new name", 0, false},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".xml")
		if tt.mode != 0 || tt.readOnly {
			if err := os.WriteFile(path, []byte("kept"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
		}
		err := Creatable(path)
		ro, isRO := errors.AsType[*ReadOnlyError](err)
		switch {
		case tt.readOnly && (!isRO || ro.Mode.Perm() != tt.mode || !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: Creatable = %v, want the file read-only, naming it", tt.name, err)
		case !tt.readOnly && err != nil:
			t.Errorf("%s: Creatable = %v", tt.name, err)
		}
	}
}
