package spec

// The endpoint every event is delivered to (shared/spec.md, Endpoints): one
// receiver URL, the same method, query parameter and content type for all.
const (
	// Method is the HTTP method of every call.
	Method = "POST"
	// QueryParam is the query parameter whose value is the event's Name.
	QueryParam = "businessType"
	// ContentType is the request's content type.
	ContentType = "application/json"
	// URLPlaceholder stands for the address the receiver supplies.
	URLPlaceholder = "{webhook_url}"
)

// signatureHeader is one of the Standard Webhooks headers whsim signs a call
// with when asked (the spec names no signing; see deliver.Signer).
type signatureHeader struct {
	Name, Meaning, Example string
}

// SignatureHeaders lists the Standard Webhooks headers in the order the
// signed content joins them (id.timestamp.body).
func SignatureHeaders() []signatureHeader {
	return []signatureHeader{
		{"webhook-id", "The message id, the same on every re-delivery of a call: the idempotency key", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"},
		{"webhook-timestamp", "Seconds since the Unix epoch when the call was signed; refuse one too far from now (replay)", "1767225600"},
		{"webhook-signature", "Space-separated v1,<base64 HMAC-SHA256 of id.timestamp.body with the whsec_ secret's key>", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="},
	}
}
