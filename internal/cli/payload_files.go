package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
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
// NDJSON file as one delivery, under --event or the event its body number
// names.
func (opts *sendOptions) fileLanes(ctx context.Context, a *app, header http.Header) ([][][]deliver.Template, error) {
	if len(opts.Sets)+len(opts.Unsets) > 0 || opts.Scenario != "" {
		return nil, usagef("--file sends the body byte for byte: --set, --unset and --scenario do not apply")
	}
	var body []byte
	var err error
	name := opts.File
	if name == "-" {
		name = "stdin"
		body, err = io.ReadAll(ctxio.NewReader(ctx, a.streams.In))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	} else {
		body, err = os.ReadFile(name)
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
			if events, err = eventOfBody(where, b); err != nil {
				return nil, err
			}
		}
		id := ""
		if s, e := deliver.FindRequestID(b); s >= 0 {
			id = string(b[s:e])
		}
		for _, e := range events {
			lanes = append(lanes, [][]deliver.Template{{{Event: e.Name, Query: "businessType=" + url.QueryEscape(e.Name),
				Header: header, Body: b, IDOff: -1, RequestID: id}}})
		}
	}
	return lanes, nil
}

// eventOfBody tells a body's event by its businessType number.
func eventOfBody(where string, body []byte) ([]spec.Event, error) {
	var env struct {
		BusinessType *json.Number `json:"businessType"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.BusinessType == nil {
		return nil, usagef("--file %s: no businessType number in the body to tell the event by; give --event", where)
	}
	n, _ := env.BusinessType.Int64()
	events := spec.EventsForNumber(int(n))
	switch len(events) {
	case 0:
		return nil, usagef("--file %s: businessType %s is no event's number; give --event", where, env.BusinessType)
	case 1:
		return events, nil
	}
	return nil, usagef("--file %s: businessType %s stands for %s; say which with --event", where, env.BusinessType,
		strings.Join(eventNames(events), " or "))
}
