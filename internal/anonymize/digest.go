package anonymize

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"net/http"
	"strings"
)

// A body's headers may carry its digest: RFC 9530's Content-Digest and
// Repr-Digest (sha-256=:…:), RFC 3230's Digest (SHA-256=…), Content-MD5,
// and the hex SHA-256 some senders put in X-Content-Sha256. Kept as they
// came, they state the original body's digest: a receiver that checks it
// refuses the anonymized call, and the digest confirms a guess of what
// the body held. Each is made again of the anonymized body in the
// algorithm it names; a header naming one whose digest cannot be made
// again (unixsum, crc32c) is dropped, and said as a dropped header is.
// Want-Digest and Want-Repr-Digest state a wish, no digest, and are kept.

// digestHash returns the hash an algorithm's name (any case) stands for,
// nil for one it does not know.
func digestHash(alg string) hash.Hash {
	switch strings.ToLower(strings.TrimSpace(alg)) {
	case "sha-256":
		return sha256.New()
	case "sha-512":
		return sha512.New()
	case "md5":
		return md5.New()
	case "sha":
		return sha1.New()
	}
	return nil
}

func digestOf(h hash.Hash, body []byte) string {
	h.Write(body)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// redigest makes the digest headers of h again of body, which anonymizing
// changed; a header it cannot make again is deleted and noted in dropped.
func redigest(h http.Header, body []byte, dropped map[string]bool) {
	for name, vals := range h {
		var remake func(string) (string, bool)
		switch strings.ToLower(name) {
		case "content-digest", "repr-digest":
			remake = func(v string) (string, bool) { return remakeDigests(v, body, true) }
		case "digest":
			remake = func(v string) (string, bool) { return remakeDigests(v, body, false) }
		case "content-md5":
			remake = func(string) (string, bool) { return digestOf(md5.New(), body), true }
		case "x-content-sha256":
			remake = func(v string) (string, bool) {
				if len(strings.TrimSpace(v)) != 64 {
					return "", false
				}
				sum := sha256.Sum256(body)
				return hex.EncodeToString(sum[:]), true
			}
		default:
			continue
		}
		for i, v := range vals {
			nv, ok := remake(v)
			if !ok {
				delete(h, name)
				dropped[http.CanonicalHeaderKey(name)] = true
				break
			}
			vals[i] = nv
		}
	}
}

// remakeDigests makes again each digest of a header's list (alg=:b64: in
// RFC 9530's form, sfv; alg=b64 in RFC 3230's), keeping the algorithms'
// spelling, their order and the white space between them; ok is false
// when an element does not read or names an algorithm digestHash does
// not know.
func remakeDigests(v string, body []byte, sfv bool) (string, bool) {
	parts := strings.Split(v, ",")
	for i, part := range parts {
		lead := part[:len(part)-len(strings.TrimLeft(part, " \t"))]
		alg, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		h := digestHash(alg)
		if !ok || h == nil || sfv && !(strings.HasPrefix(val, ":") && strings.HasSuffix(val, ":") && len(val) >= 2) {
			return "", false
		}
		d := digestOf(h, body)
		if sfv {
			d = ":" + d + ":"
		}
		parts[i] = lead + alg + "=" + d
	}
	return strings.Join(parts, ","), true
}
