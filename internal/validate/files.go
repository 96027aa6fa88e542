package validate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
)

// files are the inputs of one validation run. A regular file is opened
// when its turn comes and closed after it: 300 inputs under a limit of 256
// descriptors must not fail with "too many open files". Other inputs
// (stdin, a FIFO, a device) stay open from OpenFiles on: opening a FIFO
// again would need its writer again. Stdin redirected from a regular file
// is held as a fileStdin, read at offsets as a named file is.
type files struct {
	names []string
	rs    []io.ReadCloser // nil: a regular file, opened in its turn
	stdin io.Reader
}

// OpenFiles makes sure every input opens before any is checked: an
// unreadable one is the caller's mistake (a usage error), not a verdict.
// A regular file is closed again at once (see files). "-", and no name at
// all, is stdin. The error names the input, or is ctx's once it is done.
func OpenFiles(ctx context.Context, names []string, stdin io.Reader) (*files, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	stdins := 0
	for _, name := range names {
		if name == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		// The second read would find it empty, and the run would fail
		// with empty-input for payloads that were all checked.
		return nil, errors.New("- (stdin) is named twice: stdin can be read only once")
	}
	fs := &files{names: names, rs: make([]io.ReadCloser, len(names)), stdin: stdin}
	for i, name := range names {
		if f := regularStdin(name, stdin); f != nil {
			fs.rs[i] = fileStdin{f}
			continue
		}
		r, err := ctxio.OpenInput(ctx, name, stdin)
		if err != nil {
			fs.Close()
			return nil, cmp.Or(ctx.Err(), err)
		}
		if f, ok := r.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				f.Close()
				continue
			}
		}
		fs.rs[i] = r
	}
	return fs, nil
}

// Close closes the inputs still open.
func (fs *files) Close() {
	for i, r := range fs.rs {
		if r != nil {
			_ = r.Close()
			fs.rs[i] = nil
		}
	}
}

// fileStdin is stdin redirected from a regular file (whsim validate - <
// big.ndjson). checkInput gets its *os.File, as it gets a named file's, and
// reads its lines in ranges from the file's current offset (checkRanges),
// each worker its own, where ctxio's wrapper would make it one stream: a
// regular file's reads end, so they need not give way to ctx. Closing it
// leaves fd 0 open; once its run is done with it, its offset is put at the file's end
// (see open), where reading it whole as a stream leaves it for whoever
// reads the file on (a shell's { whsim validate -; cat; } < f).
type fileStdin struct{ f *os.File }

func (s fileStdin) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s fileStdin) Close() error               { return nil }

// regularStdin is stdin when name is "-" and stdin is an open regular
// file, else nil.
func regularStdin(name string, stdin io.Reader) *os.File {
	f, ok := stdin.(*os.File)
	if name != "-" || !ok || f == nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return f
}

// open returns input i, opening a regular file now; close closes it.
func (fs *files) open(ctx context.Context, i int) (r io.Reader, close func(), err error) {
	if s, ok := fs.rs[i].(fileStdin); ok {
		return s.f, func() { _, _ = s.f.Seek(0, io.SeekEnd); fs.rs[i] = nil }, nil
	}
	if r := fs.rs[i]; r != nil {
		return r, func() { r.Close(); fs.rs[i] = nil }, nil
	}
	rc, err := ctxio.OpenInput(ctx, fs.names[i], fs.stdin)
	if err != nil {
		return nil, nil, cmp.Or(ctx.Err(), err)
	}
	return rc, func() { rc.Close() }, nil
}

// CheckFiles checks every input in turn and returns the run's counts.
// Each payload goes to fn as a case naming its input; beforeStdin, if not
// nil, is called before stdin is read (a person at a terminal is then
// told). event is the query event plain payloads were sent with, "" to let
// the body decide. An error is an input that cannot be read, named.
// fn is called from one goroutine, in input order, and must not keep the
// case past its return: the result it holds is reused for a later payload
// (a report converts each case as it is told it).
//
// An input that held nothing (empty, blank, []) while others held payloads
// is a failed case of its own (empty-input), after the others: one empty
// file among several is as much a mistake as one alone, which the caller
// reports ("no payloads").
func (v *Validator) CheckFiles(ctx context.Context, fs *files, event string, beforeStdin func(), fn func(Case) error) (Summary, error) {
	var sum Summary
	var empty []string
	for i, name := range fs.names {
		shown := ctxio.InputName(name)
		if name == "-" && beforeStdin != nil {
			beforeStdin()
		}
		r, closeInput, err := fs.open(ctx, i)
		if err != nil {
			return sum, err // named (an *ctxio.OpenError), or ctx's
		}
		held := 0
		kind, err := v.checkInput(ctx, r, source{name: name, event: event}, func(res *result) error {
			held++
			sum.add(res)
			return fn(Case{File: shown, result: res})
		})
		closeInput()
		if err != nil {
			return sum, input.Named(shown, err)
		}
		if kind == input.Array && sum.Array == "" {
			sum.Array = shown
		}
		if held == 0 {
			empty = append(empty, shown)
		}
	}
	if sum.Payloads+sum.NotChecked == 0 {
		return sum, nil
	}
	for _, shown := range empty {
		found := v.single(ruleEmptyInput, "the input holds no payload (empty, blank lines or []), while the others do")
		if len(found) == 0 {
			continue // --ignore empty-input
		}
		res := &result{Element: -1, Findings: found, Failed: v.Failed(found)}
		sum.add(res)
		if err := fn(Case{File: shown, result: res}); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// ParseEvent reads the query event a run assumes (--event): one event of
// the catalog, in any case, returned as the catalog spells it; "" is none.
func ParseEvent(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if events, err := spec.ParseEvents([]string{name}); err == nil && len(events) == 1 {
		return events[0].Name, nil
	}
	hint := suggest.Hint(name, spec.EventNames())
	if hint == "" {
		hint = " (valid: " + strings.Join(spec.EventNames(), ", ") + ")"
	}
	return "", fmt.Errorf("unknown event %q%s", name, hint)
}

// RuleHelp is the rules as help text lists them: id, severity and summary,
// one a line.
func RuleHelp() string {
	var sb strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&sb, "  %-22s %-7s %s\n", r.ID, r.Severity, r.Summary)
	}
	return strings.TrimRight(sb.String(), "\n")
}
