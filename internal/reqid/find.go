package reqid

import (
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// Find and Read answer different questions: Read is the one reader of a
// body's requestId (its value, unescaped); Find is where its string sits,
// for a sender that splices a fresh one in (Splice).

// Find returns where the top-level "requestId" string value of a
// JSON object starts and ends (the bytes between the quotes), or -1s. The
// body is read only up to that value, its strings' bytes as they are: a
// requestId holding a byte that is not UTF-8 is the call's requestId to
// receivers (Go's encoding/json, JavaScript), which read U+FFFD for the
// byte, and so to every command's report, and the id a fresh one replaces.
func Find(body []byte) (int, int) {
	sp, ok := jsonlex.MemberAnyBytes(body, spec.FieldRequestID)
	if !ok || sp.Kind != jsonlex.String {
		return -1, -1
	}
	return sp.Start + 1, sp.End - 1
}

// FindAll is Find of every top-level "requestId" string of a body that
// names it more than once (a duplicate key, which readers read
// differently: most the first, Go's encoding/json the last), as [start,
// end) pairs in order; Find's one pair for a body that names it once, or
// whose members do not all read (Find reads only up to the first); nil for
// none.
func FindAll(body []byte) [][2]int {
	start, end := Find(body)
	if start < 0 {
		return nil
	}
	spans, ok := jsonlex.MembersAnyBytes(body, spec.FieldRequestID)
	if !ok || len(spans) < 2 {
		return [][2]int{{start, end}}
	}
	var out [][2]int
	for _, sp := range spans {
		if sp.Kind == jsonlex.String {
			out = append(out, [2]int{sp.Start + 1, sp.End - 1})
		}
	}
	return out
}

// SpliceAll returns a copy of body with each of the spans FindAll gave
// replaced by id.
func SpliceAll(body []byte, spans [][2]int, id string) []byte {
	for i := len(spans) - 1; i >= 0; i-- { // from the last: the earlier spans stay where they were
		body = Splice(body, spans[i][0], spans[i][1], id)
	}
	return body
}

// Splice returns a copy of body with the bytes [start,end) replaced by id.
func Splice(body []byte, start, end int, id string) []byte {
	out := make([]byte, 0, len(body)-(end-start)+len(id))
	out = append(out, body[:start]...)
	out = append(out, id...)
	return append(out, body[end:]...)
}

// IDs hands out the requestIds of a run: the n-th delivery of an event
// gets For(seed, event, n), the id `generate --seed` gives the n-th
// payload of that event.
type IDs struct {
	seed uint64
	n    map[string]*idBatch
}

// idBatch is the next ids of one event, made idBatchLen at a time into one
// string the ids are cut from: a run asks for an id per delivery, and one
// allocation per id cost more than making it.
type idBatch struct {
	next uint64 // n of the first id past ids
	ids  string
}

const idBatchLen = 64

// NewIDs returns the ids of a run; seed 0 draws a random seed.
func NewIDs(seed uint64) *IDs {
	if seed == 0 {
		seed = RandomSeed()
	}
	return &IDs{seed: seed, n: map[string]*idBatch{}}
}

// For returns the next id of event.
func (g *IDs) For(event string) string {
	b := g.n[event]
	if b == nil {
		b = &idBatch{}
		g.n[event] = b
	}
	if b.ids == "" {
		buf := make([]byte, 0, idBatchLen*spec.UUIDLen)
		for i := range uint64(idBatchLen) {
			buf = appendFor(buf, g.seed, event, b.next+i)
		}
		b.next += idBatchLen
		b.ids = string(buf)
	}
	id := b.ids[:spec.UUIDLen]
	b.ids = b.ids[spec.UUIDLen:]
	return id
}

// Next returns the next id of deliveries that belong to no one event.
func (g *IDs) Next() string { return g.For("") }

// Seed is the seed the ids follow from.
func (g *IDs) Seed() uint64 { return g.seed }

// Mix gives the ids to come a seed of their own under nonce (see Mix).
// The ids made ahead under the old seed are dropped: the next of each
// event follows from the new one.
func (g *IDs) Mix(nonce uint64) {
	g.seed = Mix(g.seed, nonce)
	for _, b := range g.n {
		b.next -= uint64(len(b.ids) / spec.UUIDLen)
		b.ids = ""
	}
}
