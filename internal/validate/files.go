package validate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
)

// files are the inputs of one validation run, all open.
type files struct {
	names []string
	rs    []io.ReadCloser
}

// OpenFiles opens every input before any is checked: an unreadable one is
// the caller's mistake (a usage error), not a verdict. "-", and no name at
// all, is stdin. The error names the input, or is ctx's once it is done.
func OpenFiles(ctx context.Context, names []string, stdin io.Reader) (*files, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	rs, err := ctxio.OpenAll(ctx, names, stdin)
	if err != nil {
		return nil, err
	}
	return &files{names: names, rs: rs}, nil
}

// Close closes every input.
func (fs *files) Close() {
	for _, r := range fs.rs {
		_ = r.Close()
	}
}

// CheckFiles checks every input in turn and returns the run's counts.
// Each payload goes to fn as a case naming its input; beforeStdin, if not
// nil, is called before stdin is read (a person at a terminal is then
// told). event is the query event plain payloads were sent with, "" to let
// the body decide. An error is an input that cannot be read, named.
func (v *Validator) CheckFiles(ctx context.Context, fs *files, event string, beforeStdin func(), fn func(Case) error) (Summary, error) {
	var sum Summary
	for i, name := range fs.names {
		shown := ctxio.InputName(name)
		if name == "-" && beforeStdin != nil {
			beforeStdin()
		}
		kind, err := v.checkInput(ctx, fs.rs[i], source{name: name, event: event}, func(res *result) error {
			sum.add(res)
			return fn(Case{File: shown, result: res})
		})
		if err != nil {
			return sum, fmt.Errorf("%s: %w", shown, err)
		}
		if kind == input.Array && sum.Array == "" {
			sum.Array = shown
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
