package receiver

import (
	"errors"
	"sync/atomic"
)

// keptConns is what listen has seen of whether a connection to its
// receiver may carry a later call: whether the receiver keeps the
// connections it does not say it closes (no Connection: close in its
// answer). One that closes them after its answers, or after an idle
// time shorter than listen's, races each call listen puts on a kept
// connection: a call that goes out as the receiver's close crosses it is
// reset unread, and cannot be told from one the receiver read and then
// reset, so it is answered 502, "the receiver may hold it", and not sent
// again; at a concurrency of 2 a forward in fifty, over https and http,
// more on a loaded machine (found by fw45). Once such a close was seen,
// listen keeps no connection to that receiver alive: each call goes on a
// connection of its own and says Connection: close (RFC 9112 9.6: a
// client that will not keep the connection says so), and a connection
// kept before is given no call. The receiver's answers cost a dial each
// then, on loopback a fraction of a millisecond.
type keptConns struct {
	closes atomic.Bool
	// first, when set, is called once, by the forward that saw the first
	// close or stray bytes (Config.ClosesKept; stray says which): listen
	// says so, as the receiver sees Connection: close on every call after
	// it.
	first func(stray bool)
}

// sawClose notes that the receiver closed (or reset) a connection listen
// kept alive, which its answer had not said it would.
func (k *keptConns) sawClose() { k.end(false) }

func (k *keptConns) end(stray bool) {
	if k != nil && k.closes.CompareAndSwap(false, true) && k.first != nil {
		k.first(stray)
	}
}

// sawStray notes that the receiver wrote bytes no call asked for on a
// kept connection after an answer: late enough that the next call given
// the connection read them as its answer's start and failed
// (strayBeforeAnswer), a call in two at a concurrency of 2 against such a
// receiver (found by fw45), or with the answer (bytes past its framed
// end), which a later answer may come whole after, alone, and be taken
// for the next call's (found by fw46): a connection that carries one call
// only fails none so. Kept connections to it end as for one that closes
// them, and listen says which it saw.
func (k *keptConns) sawStray() { k.end(true) }

// closing says the receiver was seen to close kept connections (or to
// write stray bytes on them): no connection to it is kept from then on.
func (k *keptConns) closing() bool { return k != nil && k.closes.Load() }

// errNotKept is the write refused on a kept-alive connection given a call
// once the receiver was seen to close such connections: none of the call
// goes out on it, and net/http makes the call again on a new connection
// (nothing written: onceOnly's getBody hands the body back).
var errNotKept = errors.New("listen keeps no connection to this receiver alive (it closed one, or wrote bytes no call asked for on one): no call goes on one kept before")
