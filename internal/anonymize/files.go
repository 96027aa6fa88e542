package anonymize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/shellcmd"
)

// target is where a run writes: stdout (Path ""), one file, or a
// directory (Dir) holding one file per input under the input's name.
type target struct {
	Path string
	Dir  bool
}

// TargetError is a target that cannot take the inputs given.
type TargetError struct{ Path, Msg string }

func (e *TargetError) Error() string { return e.Path + ": " + e.Msg }

// NewTarget makes the target path names for a run of inputs: a directory
// (created if missing) when it is one or ends in a path separator, else a
// file. Several inputs into one file would mix documents, and two inputs
// of one name into a directory would write one file, the second run over
// the first, so both are refused.
func NewTarget(path string, inputs []string) (target, error) {
	if path == "" {
		return target{}, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() || strings.HasSuffix(path, string(os.PathSeparator)) {
		byName := make(map[string]string, len(inputs))
		for _, in := range inputs {
			base := filepath.Base(in)
			if first, ok := byName[base]; ok && in != "-" {
				return target{}, &TargetError{Path: path, Msg: fmt.Sprintf("%s and %s would both be written to %s; anonymize them into different directories",
					first, in, filepath.Join(path, base))}
			}
			byName[base] = in
		}
		return target{Path: path, Dir: true}, os.MkdirAll(path, 0o755)
	}
	if len(inputs) > 1 {
		return target{}, &TargetError{Path: path, Msg: fmt.Sprintf("%d inputs need a directory (end it with /), one file each", len(inputs))}
	}
	// The directory of a file is not made, as for every file output of
	// whsim (cmdutil.FileDir): a mistyped one would hide the file.
	if dir := filepath.Dir(path); !isDir(dir) {
		if _, err := os.Stat(dir); err == nil {
			return target{}, &TargetError{Path: path, Msg: dir + " is not a directory"}
		}
		return target{}, &TargetError{Path: path, Msg: fmt.Sprintf("no directory %s (whsim makes none for a file: mkdir -p %s first)", dir, shellcmd.Path(dir))}
	}
	return target{Path: path}, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Dest is the file the input name is written to: t's file, or the file
// of its name in t's directory; "" for stdout.
func (t target) Dest(name string) string {
	if t.Dir {
		return filepath.Join(t.Path, filepath.Base(name))
	}
	return t.Path
}

// File anonymizes the input name ("-": stdin) into t: stdout, or a file
// written whole or not at all, so that a failed run leaves no
// half-anonymized fixture behind (its mode 0600, as the input may have
// been). A payload or record that cannot be read is an *InputError naming
// the input.
func (a *anonymizer) File(ctx context.Context, name string, stdin io.Reader, stdout io.Writer, t target, opts Options) (*Stats, error) {
	if t.Dir && name == "-" {
		return nil, &TargetError{Path: t.Path, Msg: "standard input has no file name to write in a directory; name a file"}
	}
	in, err := ctxio.OpenInput(ctx, name, stdin)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	stream := func(w io.Writer) (st *Stats, err error) {
		st, err = a.Stream(ctx, in, w, opts)
		return st, inputErr(name, err)
	}
	dest := t.Dest(name)
	if dest == "" {
		return stream(stdout)
	}
	// A .ndjson file holds one value a line: an indented document written
	// into one as it came was refused by every reader of whsim's.
	opts.oneLine = strings.EqualFold(filepath.Ext(dest), ".ndjson")
	var st *Stats
	err = atomicfile.Write(dest, 0o600, func(w io.Writer) (err error) {
		st, err = stream(w)
		return err
	})
	return st, err
}

// Learn reads the input name as the first reading of Stream does, filling
// the run's dictionary and writing nothing, so that a run of several
// inputs knows every value of all of them before it writes the first: a
// name that only a later input marks (its staffName, 联系人张伟) is then
// replaced in an earlier one too, and --check of the earlier one knows to
// look for it. Stdin and any input that is not a regular file (a FIFO,
// read once) are not read here; each is still read twice over in its
// turn, as one input is. An input that is missing or a directory is an
// error here, before anything is written, as OpenInput says it; a payload
// or record that cannot be read is an *InputError naming the input.
func (a *anonymizer) Learn(ctx context.Context, name string) error {
	if name == "-" {
		return nil
	}
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		if pe, ok := errors.AsType[*os.PathError](err); ok {
			err = pe.Err
		}
		return &ctxio.OpenError{Name: name, Err: err}
	case fi.IsDir():
		return &ctxio.OpenError{Name: name, Err: errors.New("is a directory")}
	case !fi.Mode().IsRegular():
		return nil
	}
	in, err := ctxio.OpenInput(ctx, name, nil)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = a.stream(ctx, in, io.Discard, Options{learn: true})
	return inputErr(name, err)
}

// LearnStdin is Learn for stdin among several inputs. Stdin is read once,
// so it is first copied to a temporary file (at most opts' spool), which
// is read for the dictionary and given back at its start, for stdin's
// turn; done removes it. Without this, a name only stdin marks stayed in
// the clear in the files before it, and their --check passed it.
func (a *anonymizer) LearnStdin(ctx context.Context, stdin io.Reader, opts Options) (r io.Reader, done func(), err error) {
	f, err := os.CreateTemp("", "whsim-anonymize-in-*")
	if err != nil {
		return nil, func() {}, fmt.Errorf("a temporary file for the input's two readings: %w", err)
	}
	done = func() { _ = f.Close(); _ = os.Remove(f.Name()) }
	if _, err = io.Copy(&capped{w: f, left: opts.spoolMax()}, ctxio.NewReader(ctx, stdin)); err == nil {
		if _, err = f.Seek(0, io.SeekStart); err == nil {
			if _, err = a.stream(ctx, f, io.Discard, Options{learn: true}); err == nil {
				_, err = f.Seek(0, io.SeekStart)
			}
		}
	}
	if err != nil {
		done()
		return nil, func() {}, inputErr("-", err)
	}
	return f, done, nil
}

// inputErr names the input name in err, a reading's error (a
// cancellation as it is).
func inputErr(name string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	// Stdin is <stdin>, as the command's warnings and validate name it.
	if ie, ok := errors.AsType[*InputError](err); ok {
		return &InputError{Name: ctxio.InputName(name), Line: ie.Line, Column: ie.Column, Err: ie.Err}
	}
	return &InputError{Name: ctxio.InputName(name), Err: err}
}
