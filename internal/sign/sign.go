// Package sign signs deliveries the Standard Webhooks way (webhook-id,
// webhook-timestamp, webhook-signature): send, check and replay sign with
// it, and anonymize --resign signs the bodies it changed.
package sign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts a Standard Webhooks secret; the rest is base64.
const SecretPrefix = "whsec_"

// Signer adds the Standard Webhooks headers (webhook-id, webhook-timestamp,
// webhook-signature) to a delivery. The spec names no signing scheme; this
// is the one receivers most often verify, so it is opt-in.
type Signer struct {
	key []byte
}

// NewSigner parses a whsec_ secret. Errors never quote the secret.
func NewSigner(secret string) (*Signer, error) {
	rest, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("secret must start with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("secret after %s is not base64", SecretPrefix)
	}
	if len(key) == 0 {
		return nil, errors.New("secret is empty after " + SecretPrefix)
	}
	if len(key) < minKeyBytes {
		return nil, fmt.Errorf("secret is %d bytes after base64 decoding; want at least %d bytes (Standard Webhooks asks %d to 64)",
			len(key), minKeyBytes, GoodKeyBytes)
	}
	return &Signer{key: key}, nil
}

// SchemeStandard is the one signing scheme, Standard Webhooks.
const SchemeStandard = "standard"

// SignerFor is the signer that --sign scheme and --secret secret ask for:
// nil when neither is given. Either without the other is an error.
func SignerFor(scheme, secret string) (*Signer, error) {
	switch scheme {
	case "":
		if secret != "" {
			return nil, errors.New("--secret needs --sign standard")
		}
		return nil, nil
	case SchemeStandard:
		if secret == "" {
			//lint:ignore ST1005 "whsec_..." is the secret's placeholder, as the sender's dashboard shows it, not a sentence's end
			return nil, errors.New("--sign standard needs --secret whsec_...")
		}
		s, err := NewSigner(secret)
		if err != nil {
			return nil, fmt.Errorf("--secret: %w", err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("--sign %q: the one scheme is standard", scheme)
}

// Key sizes, after base64 decoding: Standard Webhooks asks 24 to 64 bytes;
// whsim refuses fewer than 16 and calls 16 to 23 weak.
const (
	minKeyBytes  = 16
	GoodKeyBytes = 24
)

// Weak reports a key shorter than Standard Webhooks asks, which a strict
// receiver library may refuse.
func (s *Signer) Weak() bool { return len(s.key) < GoodKeyBytes }

// Secret is the secret the signer was made from, whsec_ and its key in
// base64: output masks it, should a receiver's answer quote it. "" for
// a signer without a key.
func (s *Signer) Secret() string {
	if len(s.key) == 0 {
		return ""
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(s.key)
}

// Signature returns "v1,<base64 HMAC-SHA256 of id.timestamp.body>".
func (s *Signer) Signature(id string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write(strconv.AppendInt(nil, ts, 10))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SignatureOf is Signature over a timestamp given as text, as a header
// carries it: check signs malformed and missing timestamps with it.
func (s *Signer) SignatureOf(id, ts string, body []byte) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Sign sets the three headers on h for a delivery at now.
func (s *Signer) Sign(h http.Header, id string, now time.Time, body []byte) {
	ts := now.Unix()
	h["Webhook-Id"] = []string{id}
	h["Webhook-Timestamp"] = []string{strconv.FormatInt(ts, 10)}
	h["Webhook-Signature"] = []string{s.Signature(id, ts, body)}
}
