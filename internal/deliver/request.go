package deliver

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
