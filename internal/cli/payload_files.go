package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/spec"
)

// payloadsOrUnreadable is replay's error for a file that could not be read
// (err), else for one of payloads: what to use instead.
func payloadsOrUnreadable(name string, err error) error {
	if err != nil {
		return usageErr(fmt.Errorf("%s: %w", name, err))
	}
	return &exitError{code: ExitFailed, err: fmt.Errorf("%s holds payloads, not captures: send them with whsim send --file %s", name, name)}
}

// fileLanes reads --file and sends it byte for byte (deliver.FileLanes),
// under --event or the event each payload's number names.
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
	lanes, err := deliver.FileLanes(body, given, header)
	var pe *deliver.PayloadError
	if errors.As(err, &pe) {
		where := name
		if pe.Line > 0 {
			where = fmt.Sprintf("%s: line %d", name, pe.Line)
		}
		var amb *deliver.AmbiguousEventError
		if errors.As(err, &amb) {
			return nil, usagef("--file %s: %v; say which with --event", where, pe.Err)
		}
		return nil, usagef("--file %s: %v; give --event", where, pe.Err)
	}
	return lanes, err
}
