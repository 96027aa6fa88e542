package attempt

import "net/http"

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
