// Package export renders whsim's deliveries for the load engines that
// already run on many machines: vegeta's JSON targets, and a k6 script with
// its data file and a k6-operator TestRun. It only writes; the command
// decides where.
package export

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/termsafe"
)

// MaxCalls bounds an export's calls: each is held in memory before the
// engine's files are written, about 2 KiB apiece for vegeta and several
// times more while a k6 data file is encoded.
const MaxCalls = 1_000_000

// Call is one exported delivery: the request whsim send would make.
type Call struct {
	Event     string
	URL       string // the receiver's URL with businessType in its query
	Header    http.Header
	Body      []byte
	RequestID string // the body's requestId
	// UserID says the requestId is the user's (--set or --unset
	// requestId): an engine that makes calls past the exported ones keeps
	// it, as send does, rather than drawing a fresh one.
	UserID bool
}

// calls lists the deliveries a run would make to target, taking each
// group of next in turn until it returns nil.
func calls(next func() []*attempt.Request, target *url.URL, userID bool) []Call {
	var calls []Call
	for job := next(); job != nil; job = next() {
		for _, req := range job {
			calls = append(calls, Call{
				Event: req.Event, URL: attempt.URLFor(target, req.Query), Header: req.Header,
				Body: req.Payload(), RequestID: req.RequestID, UserID: userID,
			})
		}
	}
	return calls
}

// vegetaTarget is the whole of vegeta's JSON target schema (v12): method,
// url, header and body (base64, which encoding/json makes of []byte).
type vegetaTarget struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body,omitempty"`
}

// Vegeta writes one vegeta JSON target per call, one a line: the input of
// `vegeta attack -format json`. A canceled ctx stops it.
func Vegeta(ctx context.Context, w io.Writer, calls []Call) error {
	enc := json.NewEncoder(w)
	for _, c := range calls {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := enc.Encode(vegetaTarget{Method: http.MethodPost, URL: c.URL, Header: c.Header, Body: c.Body}); err != nil {
			return fmt.Errorf("vegeta target %s: %w", c.RequestID, err)
		}
	}
	return nil
}

// k6Call is one element of the k6 data file's array.
type k6Call struct {
	Event     string            `json:"event"`
	URL       string            `json:"url"`
	Header    map[string]string `json:"header"`
	Body      string            `json:"body"`
	RequestID string            `json:"requestId"`
	KeepID    bool              `json:"keepId,omitempty"` // the user's requestId, kept past the data
}

// K6Text returns an error naming the first call whose body is not valid
// UTF-8 (a --set of raw bytes, to see a receiver meet them): the data
// file carries each body as a JSON string, which holds text only, so
// json.Marshal put U+FFFD where each bad byte was and k6 sent those
// three bytes, not the body vegeta and send deliver byte for byte.
func K6Text(calls []Call) error {
	for i, c := range calls {
		if utf8.Valid(c.Body) {
			continue
		}
		at := 0
		for at < len(c.Body) {
			r, n := utf8.DecodeRune(c.Body[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return fmt.Errorf("call %d (%s): its body is not valid UTF-8 (byte 0x%02x at offset %d), which k6's data file, text only, cannot carry byte for byte (k6 would send U+FFFD in its place): export it with whsim export vegeta, whose targets carry bytes",
			i+1, c.Event, c.Body[at], at)
	}
	return nil
}

// HeaderText returns an error naming the first header whose value is not
// valid UTF-8 (bytes HTTP allows as obs-text, which send delivers as
// they are): vegeta's targets and k6's data carry header values as JSON
// strings, text only, and the engines sent U+FFFD in place of each such
// byte.
func HeaderText(h http.Header) error {
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			if !utf8.ValidString(v) {
				return fmt.Errorf("\"%s\": its value is not valid UTF-8, which the engines' JSON files (vegeta's targets, k6's data) cannot carry byte for byte: they would send U+FFFD in its place",
					termsafe.Text(name))
			}
		}
	}
	return nil
}

// k6Data writes the data file the k6 script loads into a SharedArray: a
// JSON array, written a call at a time, byte for byte what one
// json.Marshal of the whole array gives. A copy of every call and the
// array's encoding in one buffer took some 1.2 GB for 100,000 calls,
// six times the calls themselves.
func k6Data(ctx context.Context, w io.Writer, calls []Call) error {
	if err := K6Text(calls); err != nil {
		return fmt.Errorf("k6 data: %w", err)
	}
	sep := []byte{'['}
	for _, c := range calls {
		// A million calls take seconds to write: Ctrl-C stops it.
		if err := ctx.Err(); err != nil {
			return err
		}
		h := make(map[string]string, len(c.Header))
		for k, v := range c.Header {
			h[k] = strings.Join(v, ", ")
		}
		b, err := json.Marshal(k6Call{Event: c.Event, URL: c.URL, Header: h, Body: string(c.Body), RequestID: c.RequestID, KeepID: c.UserID})
		if err != nil {
			return fmt.Errorf("k6 data: %w", err)
		}
		if _, err := w.Write(sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		sep[0] = ','
	}
	if len(calls) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	_, err := io.WriteString(w, "]\n")
	return err
}
