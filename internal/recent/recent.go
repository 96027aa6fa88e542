// Package recent is a map that remembers only its newest keys: the
// memory a long-running listen or a large capture keeps for "seen before?"
// stays bounded, and what it forgets is what came first (re-deliveries
// and a document's later events come soon after the first).
package recent

// Map holds at most max keys; putting a new key when it is full forgets
// the key put first. Putting a key it holds replaces the value and does
// not make the key newer. The zero Map is not usable: use New.
type Map[K comparable, V any] struct {
	m     map[K]V
	order []K // keys in the order first put, a ring once full
	next  int // the oldest key's index in order, once full
	max   int
}

// New returns an empty map that keeps n keys (at least 1).
func New[K comparable, V any](n int) *Map[K, V] {
	return &Map[K, V]{m: map[K]V{}, max: max(n, 1)}
}

// Get is the value held for k.
func (r *Map[K, V]) Get(k K) (V, bool) {
	v, ok := r.m[k]
	return v, ok
}

// Put holds v for k and returns the value held before, if any.
func (r *Map[K, V]) Put(k K, v V) (prev V, had bool) {
	prev, had = r.m[k]
	r.m[k] = v
	if had {
		return prev, true
	}
	if len(r.order) < r.max {
		r.order = append(r.order, k)
		return prev, false
	}
	delete(r.m, r.order[r.next])
	r.order[r.next] = k
	r.next = (r.next + 1) % r.max
	return prev, false
}

// Len is the number of keys held.
func (r *Map[K, V]) Len() int { return len(r.m) }
