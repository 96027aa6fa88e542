package attempt

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/whsim/whsim/internal/reqid"
)

// Template is a pre-built delivery: the body is encoded once, off the hot
// path, and each delivery made from it gets a fresh requestId spliced into a
// copy at IDOff.
type Template struct {
	Event  string
	Query  string
	Header http.Header
	Body   []byte
	// IDOff is where the 36-byte requestId string value starts in Body, or
	// -1 to send Body as it is (a --file body, a --set requestId).
	IDOff     int
	RequestID string // the id in Body, when IDOff is -1
	// NoRequestID says Body names no requestId (reqid.Named).
	NoRequestID bool
	// DocOffs are where the last DocDigits digits of each of the
	// document's numbers (an invoice's code and invoiceCode, a receipt's
	// spec.FieldReceiptNumber) start in Body: each delivery writes its document's serial
	// there, so that a run's documents are all distinct however many it
	// sends from a few templates. Empty: the numbers are sent as they are.
	DocOffs []int
	// Resent and KnownDocument are of a file's payload sent as it is
	// (load.FileLanes): it repeats an earlier payload's call (its event
	// and bytes), a re-delivery; or it carries a document an earlier
	// payload carried (its numbers: a void after the create, the same
	// document under a new requestId), so that it is no new document.
	Resent, KnownDocument bool
	// NoDocument says Body names no document: none of the numbers the
	// spec keys a document on (an invoice's code and invoiceCode, a
	// receipt's number), in either shape. Its delivery is no document's.
	NoDocument bool
	// DocKey, of a generated body whose numbers are sent as they are (no
	// DocOffs: the user set them), is a hash of its kind and numbers,
	// which every delivery of a body with those numbers carries: one
	// document however many calls; 0 for a body without numbers.
	DocKey uint64
}

// DocDigits is how many trailing digits of a document number a delivery
// replaces with its document's serial: 10^8 distinct documents a run.
const DocDigits = 8

// DocSerials is how many distinct serials DocDigits hold.
const DocSerials = 100_000_000

// spliced says whether a delivery of t writes into a copy of its body.
func (t *Template) spliced() bool { return t.IDOff >= 0 || len(t.DocOffs) > 0 }

// build appends to b the body a delivery of t with requestId id (when
// IDOff >= 0) and document serial doc sends.
func (t *Template) build(b []byte, id string, doc uint64) []byte {
	b = append(b, t.Body...)
	if t.IDOff >= 0 {
		copy(b[t.IDOff:], id)
	}
	for _, off := range t.DocOffs {
		n := doc
		for i := off + DocDigits - 1; i >= off; i-- {
			b[i] = byte('0' + n%10)
			n /= 10
		}
	}
	return b
}

// Payload returns the body the request sends: for a request from a
// template, a copy of the template's body with the request's own
// requestId, as the delivery would write it; else Body.
func (r *Request) Payload() []byte {
	t := r.tmpl
	if t == nil || !t.spliced() {
		return r.Body
	}
	return t.build(nil, r.RequestID, r.doc)
}

// FromTemplate makes r a delivery of t with requestId id (t's own when t
// has no room for one) and, where t has document numbers, document
// serial doc (below DocSerials): the body is made when r is delivered,
// into its worker's buffer.
func (r *Request) FromTemplate(t *Template, id string, doc uint64) {
	r.Body, r.RequestID, r.tmpl, r.doc = nil, id, t, doc%DocSerials
}

// ID is the requestId the reports of r give (send's and replay's lines,
// JSON, JUnit, HTML), as listen gives a call's: its value read as
// receivers read it (reqid.Value), named false when the body names none
// (a body that names an empty one is named). A requestId that is no
// string (a number) is read from the body, as listen reads it.
func (r *Request) ID() (id string, named bool) {
	if r.NoRequestID {
		return "", false
	}
	id = reqid.Value(r.RequestID)
	if id == "" && r.Body != nil {
		id = reqid.Read(r.Body)
	}
	return id, true
}

// ShownID is r's requestId as text shows it (reqid.Shown).
func (r *Request) ShownID() string { return reqid.Shown(r.ID()) }

// ReplayWebhookID is the webhook-id to sign a replayed call with: the
// captured one (a re-delivery keeps its id), unless the call has a fresh
// requestId (a new message); else its requestId; else one made from the
// body, so that the same call gets the same id. replay and check --rerun
// both sign re-sent calls with it.
func (req *Request) ReplayWebhookID(fresh bool) string {
	if id := req.Header.Get("Webhook-Id"); id != "" && !fresh {
		return id
	}
	if req.RequestID != "" {
		return req.RequestID
	}
	sum := sha256.Sum256(req.Body)
	return "msg_" + hex.EncodeToString(sum[:12])
}
