package whsimtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
)

// Call is one webhook call as the ERP makes it, for a team's own tests:
// its body is a realistic, valid document (whsim generate's), and Request
// makes the *http.Request to hand to a handler's ServeHTTP.
type Call struct {
	// Event is the call's businessType: CREATE_PURCHASE_ORDER_INVOICE,
	// AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC or
	// ABANDON_RECEIVABLE_DOC.
	Event string
	// Shape is "described" (the spec's field tables; the default) or
	// "sample" (the spec's sample bodies).
	Shape string
	// Seed makes the document: the same Call gives the same bytes. 0 is
	// seed 1, so that a test is repeatable; another seed makes another
	// document, with another requestId.
	Seed uint64
	// Set changes the document after it is made, each "path=value" as
	// whsim generate --set takes it: a dotted path (data.items.0.quantity,
	// a backslash escapes a dot in a key) and a value read as JSON when
	// it is JSON, else as a string. Unset removes paths, after the sets.
	Set, Unset []string
	// Path is the path, and query, the handler is mounted at; "/" by
	// default. businessType is added to its query (one that has it
	// already is refused).
	Path string
	// Secret, when set ("whsec_..."), signs the request with Standard
	// Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)
	// at Time, or now.
	Secret string
	Time   time.Time
	// Header is added to the request.
	Header http.Header
}

// Body is the call's JSON document.
func (c Call) Body() ([]byte, error) {
	body, _, err := c.body()
	return body, err
}

func (c Call) body() ([]byte, []string, error) {
	shape := c.Shape
	if shape == "" {
		shape = string(spec.Described)
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	if _, ok := spec.Lookup(c.Event); !ok {
		return nil, nil, errors.New("Call.Event " + eventError(c.Event))
	}
	pl, err := payload.Request{Events: []string{c.Event}, Shape: shape, Seed: seed, Sets: c.Set, Unsets: c.Unset}.Plan(time.Now())
	if err != nil {
		return nil, nil, errors.New("Call." + flagWords.Replace(strings.TrimPrefix(err.Error(), "--")))
	}
	body, err := pl.NextBody(pl.Events[0])
	if pe := (*payload.PathError)(nil); errors.As(err, &pe) {
		// The CLI's words name the run's payload ("payload 1"); a Call
		// is one, and its field is what failed.
		return nil, nil, errors.New("Call." + flagWords.Replace(strings.TrimPrefix(pe.Error(), "--")) + pe.Hint())
	}
	if err != nil {
		return nil, nil, errors.New("Call: " + flagWords.Replace(err.Error()))
	}
	return body, pl.Warnings, nil
}

// flagWords names a Call's fields where the CLI's errors name its flags.
var flagWords = strings.NewReplacer("event:", "Event:", "shape:", "Shape:", "set ", "Set ", "unset ", "Unset ", "--set", "Set", "--unset", "Unset", "--event", "Event")

// eventError says what is wrong with an event name a Call gives. A Call
// is one call: the names it offers are the events, never the CLI's "all".
func eventError(event string) string {
	evs, err := spec.ParseEvents([]string{event})
	names := spec.EventNames()
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	switch {
	case event == "":
		return "is empty: want " + want
	case err != nil:
		if hint := suggest.Hint(event, names); hint != "" {
			return fmt.Sprintf("%q: unknown event%s", event, hint)
		}
		return fmt.Sprintf("%q: unknown event, want %s", event, want)
	case len(evs) == 1:
		return fmt.Sprintf("%q: the name is matched exactly, as in the query (did you mean %q?)", event, evs[0].Name)
	}
	return fmt.Sprintf("%q: want one event", event)
}

// Request is the call as a handler receives it: POST to Path with
// businessType in the query, the body, Content-Type application/json, and
// the signature headers when Secret is set.
func (c Call) Request() (*http.Request, error) {
	req, _, err := c.request()
	return req, err
}

// request is Request, with the warnings of the body's Set.
func (c Call) request() (*http.Request, []string, error) {
	body, warnings, err := c.body()
	if err != nil {
		return nil, nil, err
	}
	p := c.Path
	if p == "" {
		p = "/"
	}
	// As WithPath takes it: a fragment would end up in businessType's
	// value, a bad query dropped from r.URL.Query() unsaid.
	if why := pathProblem(p, "the Call adds its Event's"); why != "" {
		return nil, nil, fmt.Errorf("Call.Path %q: %s", p, why)
	}
	u, err := url.Parse(p)
	if err != nil {
		return nil, nil, fmt.Errorf("Call.Path %q: %w", p, err)
	}
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, attempt.URLFor(u, spec.Query(c.Event)), bytes.NewReader(body))
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Secret != "" {
		s, err := sign.NewSigner(c.Secret)
		if err != nil {
			return nil, nil, errors.New("Call.Secret: " + err.Error())
		}
		at := c.Time
		if at.IsZero() {
			at = time.Now()
		}
		id := (&attempt.Request{Body: body, RequestID: reqid.Read(body)}).ReplayWebhookID(true)
		s.Sign(req.Header, id, at, body)
	}
	return req, warnings, nil
}

// NewBody is c.Body for a test: an error fails it at once, and a Set the
// spec does not know for the event is logged.
func NewBody(t testing.TB, c Call) []byte {
	mustHaveTest(t, "NewBody")
	t.Helper()
	body, warnings, err := c.body()
	if err != nil {
		t.Fatal("whsimtest.NewBody: " + err.Error())
	}
	for _, w := range warnings {
		t.Log("whsimtest.NewBody: " + flagWords.Replace(w))
	}
	return body
}

// NewRequest is c.Request for a test: an error fails it at once, and a
// Set the spec does not know for the event is logged, as NewBody logs it.
func NewRequest(t testing.TB, c Call) *http.Request {
	mustHaveTest(t, "NewRequest")
	t.Helper()
	req, warnings, err := c.request()
	if err != nil {
		t.Fatal("whsimtest.NewRequest: " + err.Error())
	}
	for _, w := range warnings {
		t.Log("whsimtest.NewRequest: " + flagWords.Replace(w))
	}
	return req
}
