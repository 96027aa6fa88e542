package inspect

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// The page's credential is not the API token. Browsers keep cookies per
// host, not per port: a cookie 127.0.0.1:4040 sets is sent to every
// server on 127.0.0.1 the user browses, and one holding the token let
// any of them call /api/export. So opening the token URL hands out a
// session instead:
//
//   - a session id drawn per opening, put in the page's path
//     (/s/<id>/): the cookie's Path is that directory, so a browser
//     sends the cookie only to requests under it, and a server on
//     another port never learns the id and never gets the cookie;
//   - a cookie whose name and value are HMACs, keyed by a secret drawn
//     per process, of the inspector's port and the session id: it opens
//     the API only under /s/<id>/, only with a Host on this port, and
//     only in this process (a restart with the same --ui-token draws a
//     new key, so old cookies open nothing).
//
// Scripts keep "Authorization: Bearer <token>", on /api/ and under
// /s/<id>/api/ alike.

// sessionPrefix starts the path of a page opened through the token URL.
const sessionPrefix = "/s/"

// sessionIDLen is the length of a session id: rand.Text, 26 base32
// characters.
const sessionIDLen = 26

// sessionKey is the context key of the session id a request's path
// named.
type sessionKey struct{}

// newSessionKey draws the per-process key that session cookies are
// MACed with.
func newSessionKey() []byte {
	k := make([]byte, 32)
	rand.Read(k) // never fails (crypto/rand)
	return k
}

// mac is HMAC-SHA256 under the handler's session key of the parts.
func (h *handler) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, h.sessionKey)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0}) // parts cannot run into each other
	}
	return m.Sum(nil)
}

// sessionCookieName names session id's cookie on port: the port and a
// tag of the session, so two inspectors, or two openings of one, keep
// apart.
func (h *handler) sessionCookieName(port, id string) string {
	return "whsim-inspector-" + port + "-" + hex.EncodeToString(h.mac("name", port, id)[:6])
}

// sessionCookieValue is the value of session id's cookie on port.
func (h *handler) sessionCookieValue(port, id string) string {
	return base64.RawURLEncoding.EncodeToString(h.mac("session", port, id))
}

// newSessionCookie draws a session for r's port: the path its page is
// served under and the cookie that opens the API there.
func (h *handler) newSessionCookie(r *http.Request) (dir string, c *http.Cookie) {
	port := requestPort(r)
	id := rand.Text()
	dir = sessionPrefix + id + "/"
	return dir, &http.Cookie{
		Name: h.sessionCookieName(port, id), Value: h.sessionCookieValue(port, id),
		Path: dir, HttpOnly: true, SameSite: http.SameSiteStrictMode,
	}
}

// requestPort is the port r's Host names ("" for none).
func requestPort(r *http.Request) string {
	_, port, _ := net.SplitHostPort(r.Host)
	return port
}

// splitSession takes /s/<id>/ off the front of path: the id and the rest
// ("/api/calls", "/app.js"); ok is false when path is no session's.
func splitSession(path string) (id, rest string, ok bool) {
	after, found := strings.CutPrefix(path, sessionPrefix)
	if !found || len(after) < sessionIDLen {
		return "", "", false
	}
	id, rest = after[:sessionIDLen], after[sessionIDLen:]
	if rest == "" {
		rest = "/"
	}
	if rest[0] != '/' {
		return "", "", false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('A' <= c && c <= 'Z' || '2' <= c && c <= '7') {
			return "", "", false
		}
	}
	return id, rest, true
}

// withSession serves r with its session's path prefix taken off, the id
// kept in its context for sessionAuthorized.
func withSession(r *http.Request) (*http.Request, bool) {
	id, rest, ok := splitSession(r.URL.Path)
	if !ok {
		return r, false
	}
	r2 := r.WithContext(context.WithValue(r.Context(), sessionKey{}, id))
	u := *r.URL
	u.Path, u.RawPath = rest, ""
	r2.URL = &u
	return r2, true
}

// sessionAuthorized says r carries the cookie of the session its path
// names, set for the port its Host names: a cookie set through one port
// opens nothing with a Host on another (the port is in the cookie's name
// and MACed into its value), so a port forward keeps working and a
// cookie some other local server got stays shut.
func (h *handler) sessionAuthorized(r *http.Request) bool {
	id, _ := r.Context().Value(sessionKey{}).(string)
	if id == "" {
		return false
	}
	port := requestPort(r)
	if port == "" {
		return false
	}
	c, err := r.Cookie(h.sessionCookieName(port, id))
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(c.Value), []byte(h.sessionCookieValue(port, id)))
}
