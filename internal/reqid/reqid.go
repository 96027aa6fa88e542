// Package reqid derives the requestIds of a run from its seed: the n-th
// delivery of an event gets the same id in `generate --seed` and
// `send --seed --fixed-ids`, and no two deliveries of a run, or of runs of
// other events under the same seed, share one. A run that mixes a nonce
// into its seed (Mix) keeps the seed's content with ids of its own.
package reqid

import (
	"crypto/sha256"
	"math/rand/v2"
	"strings"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// For returns the id of the n-th (from 0) payload of event in a run seeded
// with seed: a version 4 UUID (RFC 9562) whose 122 bits follow from the
// three. For a given seed and event, distinct n give distinct ids: n is
// mixed by a bijection.
func For(seed uint64, event string, n uint64) string {
	var b [spec.UUIDLen]byte
	return string(appendFor(b[:0], seed, event, n))
}

// appendFor appends For(seed, event, n) to b.
func appendFor(b []byte, seed uint64, event string, n uint64) []byte {
	a := mix(seed ^ mix(hash(event)^mix(n)))
	return spec.AppendUUID(b, a, mix(a^0x9e3779b97f4a7c15))
}

// Mix is the id seed of a run of content seed with nonce: seed itself for
// nonce 0, so that a run with fixed ids gives the ids `generate --seed`
// prints; for any other nonce, ids of the run's own, so that runs of one
// seed (the same content) do not repeat each other's requestIds and a
// deduplicating receiver does not take them for re-deliveries.
func Mix(seed, nonce uint64) uint64 {
	if nonce == 0 {
		return seed
	}
	return mix(seed ^ mix(nonce^0x6a09e667f3bcc909))
}

// Nonce is a fresh, non-zero nonce for a run whose ids must be its own.
func Nonce() uint64 { return RandomSeed() }

// RandomSeed is the seed of a run the user did not seed.
func RandomSeed() uint64 {
	for {
		if s := rand.Uint64(); s != 0 {
			return s
		}
	}
}

// Spread is splitmix64's finalizer, for other numbers of a run drawn from
// its seed or nonce (check's document numbers) as its ids are.
func Spread(x uint64) uint64 { return mix(x) }

// mix is splitmix64's finalizer: a bijection on 64 bits that spreads every
// input bit over the output.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Hash is FNV-1a: a string as a number to draw from, as a run's ids are
// drawn (listen --fault draws its faults from a requestId so).
func Hash(s string) uint64 { return hash(s) }

// hash is FNV-1a.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Read reads the body's requestId, "" when there is none to read: a
// string's value, or a number or object as it was sent. It reads the body
// only up to the requestId (senders put it first), so a large body costs
// little: a full json.Unmarshal here was a fifth of listen's CPU under load.
// A byte that is not UTF-8 stays as it is (see Find): text shows it as its
// escape, JSON as U+FFFD, as receivers read it.
func Read(body []byte) string {
	id, _ := Lookup(body)
	return id
}

// Named says whether body names a requestId: a top-level member of that
// name whose value is not null. A body that names none is no body with an
// empty one ("requestId":""), and every report tells them apart: Shown in
// text, null rather than "" in JSON.
func Named(body []byte) bool {
	sp, ok := jsonlex.MemberAnyBytes(body, spec.FieldRequestID)
	return ok && sp.Kind != jsonlex.Null
}

// Lookup is Read and Named in one reading of body.
func Lookup(body []byte) (id string, named bool) {
	sp, ok := jsonlex.MemberAnyBytes(body, spec.FieldRequestID)
	switch {
	case !ok || sp.Kind == jsonlex.Null:
		return "", false
	case sp.Kind == jsonlex.String:
		return jsonlex.StringAt(body, sp), true
	}
	return string(body[sp.Start:sp.End]), true
}

// Absent is what text shows for the requestId of a body that names none.
const Absent = "-"

// Shown is a requestId as every command's text (a line, a JUnit case, a
// report's table) shows it: Absent when the body names none, "" in quotes
// when it names an empty one, else id (to be made terminal-safe).
func Shown(id string, named bool) string {
	switch {
	case !named:
		return Absent
	case id == "":
		return `""`
	}
	return id
}

// Value is the requestId a body's raw one stands for: raw is the bytes
// between the quotes of its string (Find's span, which a delivery keeps
// as its RequestID, its webhook-id and the id it splices), value its
// escapes read ("caf\u00e9-1" is café-1), as a receiver, and listen,
// read it. Reports say the value: a tool matching a sender's report to a
// receiver's log would never find the escapes as written.
func Value(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw
	}
	// Lexed as the body's member was: raw that is no string's inside
	// (an escape cut short, a quote) is said as it is.
	b := []byte(`{"` + spec.FieldRequestID + `":"` + raw + `"}`)
	sp, ok := jsonlex.MemberAnyBytes(b, spec.FieldRequestID)
	if !ok || sp.Kind != jsonlex.String || sp.End != len(b)-1 {
		return raw
	}
	return jsonlex.StringAt(b, sp)
}

// maxKept is the longest requestId Kept returns as it is.
const maxKept = 64

// Kept is what a table of the requestIds seen keeps for id: id itself, or
// for one longer than maxKept its SHA-256, marked apart. A requestId is the
// sender's, as long as a body (listen's --max-body, 10 MiB by default):
// kept whole, a table bounded by its count of ids (listen's attempts and
// re-deliveries, 65,536 each) would hold gigabytes of a sender's long ids.
func Kept(id string) string {
	if len(id) <= maxKept {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + string(sum[:])
}
