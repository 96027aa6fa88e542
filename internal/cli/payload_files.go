package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/spec"
)

// holdsPayloads reports whether a file replay was given holds plain
// payloads (as generate writes them) rather than capture records: its first
// non-blank line opens a JSON value and is not a record. It reads through
// ReadAt, so the file is still at its start; a pipe is not looked at.
func holdsPayloads(f *os.File) (bool, error) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	br := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	for {
		line, err := br.ReadSlice('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			return !capture.IsRecord(trimmed) && (trimmed[0] == '{' || trimmed[0] == '['), nil
		}
		switch {
		case err == io.EOF:
			return false, nil
		case err != nil && err != bufio.ErrBufferFull:
			return false, err
		}
	}
}

// payloadsOrUnreadable is replay's error for a file that could not be read
// (err), else for one of payloads: what to use instead.
func payloadsOrUnreadable(name string, err error) error {
	if err != nil {
		return usageErr(fmt.Errorf("%s: %w", name, err))
	}
	return &exitError{code: ExitFailed, err: fmt.Errorf("%s holds payloads, not captures: send them with whsim send --file %s", name, name)}
}

// splitPayloads returns the payloads of a --file body: one per non-blank
// line of NDJSON (a first line that is a whole JSON value, with more
// after it), else the body itself. Each is returned with its line, 0 for a
// whole body.
func splitPayloads(body []byte) (bodies [][]byte, lines []int) {
	first, rest, _ := bytes.Cut(body, []byte("\n"))
	if !json.Valid(first) || len(bytes.TrimSpace(rest)) == 0 {
		return [][]byte{body}, []int{0}
	}
	for i, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			bodies = append(bodies, line)
			lines = append(lines, i+1)
		}
	}
	return bodies, lines
}

// fileLanes sends the body of --file byte for byte, or each line of an
// NDJSON file of payloads, under --event or the event each body's number
// names.
func (opts *sendOptions) fileLanes(ctx context.Context, a *app, header http.Header) ([][][]deliver.Template, error) {
	if len(opts.Sets)+len(opts.Unsets) > 0 || opts.Scenario != "" {
		return nil, usagef("--file sends the body byte for byte: --set, --unset and --scenario do not apply")
	}
	name, body, err := a.readInput(ctx, opts.File)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, usagef("--file: %v", err)
	}
	var given []spec.Event
	if opts.eventsSet {
		if given, err = spec.ParseEvents(opts.Events); err != nil {
			return nil, usageErr(fmt.Errorf("--event: %w", err))
		}
	}
	var lanes [][][]deliver.Template
	bodies, lines := splitPayloads(body)
	for i, b := range bodies {
		where := name
		if lines[i] > 0 {
			where = fmt.Sprintf("%s: line %d", name, lines[i])
		}
		events := given
		if events == nil {
			e, err := deliver.EventOf(b)
			var amb *deliver.AmbiguousEventError
			switch {
			case errors.As(err, &amb):
				return nil, usagef("--file %s: %v; say which with --event", where, err)
			case err != nil:
				return nil, usagef("--file %s: %v; give --event", where, err)
			}
			events = []spec.Event{e}
		}
		for _, e := range events {
			lanes = append(lanes, [][]deliver.Template{{deliver.NewTemplate(e.Name, header, b, false)}})
		}
	}
	return lanes, nil
}
