package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/spec"
)

type replayOptions struct {
	deliveryFlags
	Files        []string
	Events       []string
	NewRequestID bool
	Seed         uint64
}

func newReplayCmd(a *app) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay <capture.ndjson>... --url <url> [--event <name>]... [--rate <n/s>] [--concurrency <n>] [--new-request-id]",
		Short: "Send captured calls again, byte for byte",
		Long: `Send the calls a capture file recorded (whsim listen --capture) to a receiver
again: the same method, query (businessType and the rest, added to --url's
own query), body byte for byte, content type and headers. Headers that belong
to the connection (Host, Content-Length, Connection, Accept-Encoding, ...)
are the client's own.

Calls go in captured order unless --concurrency is above 1. --new-request-id
gives each call a fresh requestId (and changes nothing else) to test a
receiver's deduplication. A torn last line, as a crash leaves it, is reported
and skipped. Output, summary and exit status are those of send.`,
		Example: `  whsim replay capture.ndjson --url http://localhost:3000/webhook
  whsim replay monday.ndjson tuesday.ndjson --url http://localhost:3000/webhook --event AUDIT_PURCHASE_ORDER_INVOICE
  whsim replay capture.ndjson --url http://localhost:3000/webhook --new-request-id --output json`,
		Args: cobra.MinimumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"ndjson", "json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runReplay(cmd.Context(), a, opts)
		}),
	}
	opts.deliveryFlags.register(cmd)
	f := cmd.Flags()
	f.StringSliceVarP(&opts.Events, "event", "e", nil, "replay only calls of this event (repeatable)")
	f.BoolVar(&opts.NewRequestID, "new-request-id", false, "give each call a fresh requestId, every other byte unchanged")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed of the fresh requestIds (0: random)")
	_ = cmd.RegisterFlagCompletionFunc("event", completeEvents)
	return cmd
}

// connectionHeaders are set by the client for the connection it makes, not
// copied from the captured call.
var connectionHeaders = []string{
	"Host", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Te", "Trailer",
	"Upgrade", "Proxy-Connection", "Proxy-Authorization", "Accept-Encoding",
}

func runReplay(ctx context.Context, a *app, opts *replayOptions) error {
	expect, err := opts.check()
	if err != nil {
		return err
	}
	if opts.URL == "" {
		return usagef("--url: say where to replay to")
	}
	target, err := parseTarget(opts.URL)
	if err != nil {
		return err
	}
	var only []spec.Event
	if len(opts.Events) > 0 {
		if only, err = spec.ParseEvents(opts.Events); err != nil {
			return usageErr(fmt.Errorf("--event: %w", err))
		}
	}
	// Open every file first: an unreadable one is a usage error before
	// anything is sent.
	files := make([]*os.File, len(opts.Files))
	for i, name := range opts.Files {
		f, err := ctxio.Open(ctx, name)
		if err != nil {
			return cmp.Or(ctx.Err(), usageErr(err))
		}
		defer f.Close()
		files[i] = f
		if plain, err := holdsPayloads(f); err != nil || plain {
			return payloadsOrUnreadable(name, err)
		}
	}
	rep := newDeliveryReporter(a, opts.Output, opts.Verbose)
	d, err := opts.newDeliverer(a, target, expect, rep)
	if err != nil {
		return err
	}
	src := &replaySource{files: files, names: opts.Files, only: only, warn: rep.warn}
	if opts.NewRequestID {
		src.ids = deliver.NewIDs(opts.Seed)
	}
	err = runDeliveries(ctx, a, rep, d, src.next, deliver.RunOptions{Concurrency: opts.Concurrency, Rate: opts.Rate}, 0)
	if src.err != nil && err == nil {
		return &exitError{code: ExitFailed, err: src.err}
	}
	return err
}

// replaySource streams records from the capture files, one delivery each,
// so that a large capture is never held in memory.
type replaySource struct {
	files []*os.File
	names []string
	only  []spec.Event
	ids   *deliver.IDs
	warn  func(string, ...any)

	i   int
	seq int
	r   *capture.Reader
	err error // a read error that ended the replay early
}

func (s *replaySource) next() []*deliver.Request {
	for s.i < len(s.files) {
		if s.r == nil {
			s.r = capture.NewReader(s.files[s.i])
		}
		rec, err := s.r.Next()
		var torn *capture.TornError
		var bad *capture.LineError
		switch {
		case errors.Is(err, io.EOF):
			s.i++
			s.r = nil
			continue
		case errors.As(err, &torn):
			s.warn("%s: %v", s.names[s.i], err)
			continue
		case errors.As(err, &bad):
			s.warn("%s: %v; skipped", s.names[s.i], err)
			continue
		case err != nil:
			s.err = fmt.Errorf("%s: %w", s.names[s.i], err)
			return nil
		}
		req, err := s.request(rec)
		if err != nil {
			s.warn("%s: line %d: %v; skipped", s.names[s.i], s.r.Line(), err)
			continue
		}
		if req == nil {
			continue
		}
		s.seq++
		req.Seq = s.seq
		return []*deliver.Request{req}
	}
	return nil
}

// request turns a record into a delivery, nil when --event filters it out.
func (s *replaySource) request(rec *capture.Record) (*deliver.Request, error) {
	event, _ := rec.Event()
	if len(s.only) > 0 && !slices.ContainsFunc(s.only, func(e spec.Event) bool { return e.Name == event }) {
		return nil, nil
	}
	body, err := rec.RequestBody()
	if err != nil {
		return nil, err
	}
	h := rec.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, k := range connectionHeaders {
		h.Del(k)
	}
	// The captured content type is replayed as it was, or not at all.
	if _, ok := h["Content-Type"]; !ok {
		h["Content-Type"] = nil
	}
	id := ""
	start, end := deliver.FindRequestID(body)
	if start >= 0 {
		id = string(body[start:end])
	}
	if s.ids != nil && start >= 0 {
		id = s.ids.Next()
		body = deliver.SpliceID(body, start, end, id)
	}
	if event == "" {
		event = "-"
	}
	method := strings.ToUpper(rec.Method)
	if method == "" {
		method = http.MethodPost
	}
	return &deliver.Request{Event: event, Method: method, Query: rec.Query, Header: h, Body: body, RequestID: id}, nil
}
