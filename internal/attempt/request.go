package attempt

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
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
}

// Payload returns the body the request sends: for a request from a
// template, a copy of the template's body with the request's own
// requestId, as the delivery would write it; else Body.
func (r *Request) Payload() []byte {
	t := r.tmpl
	if t == nil || t.IDOff < 0 {
		return r.Body
	}
	b := append([]byte(nil), t.Body...)
	copy(b[t.IDOff:], r.RequestID)
	return b
}

// FromTemplate makes r a delivery of t with requestId id: the body is made
// when r is delivered, into its worker's buffer.
func (r *Request) FromTemplate(t *Template, id string) {
	r.Body, r.RequestID, r.tmpl = nil, id, t
}

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
