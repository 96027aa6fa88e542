package capture

import (
	"net/http"
	"net/textproto"
)

// replayDropped are the headers a replay never copies from a record: the
// client sets them for the connection it makes, and a proxy's credentials
// are not the receiver's. Canonical names.
var replayDropped = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Te": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
	"Proxy-Authorization": true, "Accept-Encoding": true,
}

// ReplayHeaders returns the headers to replay a call with: a copy of the
// recorded ones, names canonical, without the connection's own headers in
// any case (a hand-made capture may say "host" or "content-length", which
// would otherwise go out beside the client's own).
func ReplayHeaders(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		k = textproto.CanonicalMIMEHeaderKey(k)
		if replayDropped[k] {
			continue
		}
		out[k] = append(out[k], vs...)
	}
	return out
}
