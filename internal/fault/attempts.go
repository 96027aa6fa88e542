package fault

import (
	"sync"

	"github.com/whsim/whsim/internal/recent"
	"github.com/whsim/whsim/internal/reqid"
)

// maxAttempts bounds the requestIds Attempts remembers: a listen running
// for days keeps bounded memory, and a sender's retries come soon after
// the first call.
const maxAttempts = 1 << 16

// Attempts counts the calls seen per requestId: the n-th call with an id
// is its attempt n. It is safe for concurrent use.
type Attempts struct {
	mu   sync.Mutex
	seen *recent.Map[string, int]
}

// NewAttempts returns a count that has seen no call.
func NewAttempts() *Attempts {
	return &Attempts{seen: recent.New[string, int](maxAttempts)}
}

// Next counts one more call with key and returns its attempt, from 1.
func (a *Attempts) Next(key string) int {
	key = reqid.Kept(key) // a sender's long id, not kept whole
	a.mu.Lock()
	defer a.mu.Unlock()
	n, _ := a.seen.Get(key)
	n++
	a.seen.Put(key, n)
	return n
}
