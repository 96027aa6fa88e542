package receiver

import (
	"fmt"
	"time"

	"github.com/whsim/whsim/internal/recent"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// The checks a Flag names: the rules of whsim check that listen
// --forward-to can judge from real calls (check names them too).
const (
	RejectsMalformed = spec.CheckRejectsMalformed
	Duplicates       = spec.CheckDuplicates
)

// Flag is a judgement on one call a receiver answered: the check whose
// rule the answer breaks, and why.
type Flag struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
	// Of is the seq of the call the flag judges when it is not the one
	// it was given with (0): a re-delivery refused, judged before the
	// call accepted that came before it, earns its flag only once that
	// call is judged (Forwarded.Judge).
	Of uint64 `json:"of,omitempty"`
}

// maxRemembered bounds the requestIds a Forwarded keeps, so that a listen
// running for days holds bounded memory; re-deliveries come soon after.
const maxRemembered = 1 << 16

// Forwarded judges the answers a receiver gives to real calls passed on
// to it (listen --forward-to), the way check judges its cases: an invalid
// call accepted, a re-delivery refused. It is used from one goroutine.
type Forwarded struct {
	// accepted holds the requestIds the receiver answered 2xx, with
	// when the first call so answered came: only their re-deliveries are
	// judged. One it refused every time (a receiver down answers each
	// retry 500) is a call refused, not a re-delivery refused.
	accepted *recent.Map[string, time.Time]
	// refused holds, of each requestId no call accepted before them
	// yet, the calls refused so far (valid, answered non-2xx), the
	// newest maxRefusedKept: a call accepted that came before one of
	// them, judged after it (a fault's call, judged once its later
	// copy is answered; one the receiver answered after the sender's
	// retry), makes it a re-delivery refused, and flags it then.
	refused *recent.Map[string, []refusedCall]
}

// refusedCall is a call Forwarded.refused holds: its seq, when it came
// and the status it got.
type refusedCall struct {
	seq    uint64
	came   time.Time
	status int
}

// maxRefusedKept bounds the refused calls Forwarded keeps of one
// requestId: a sender retrying a call its receiver refuses retries a few
// times, not without end.
const maxRefusedKept = 8

// NewForwarded returns a judge that has seen no call yet.
func NewForwarded() *Forwarded {
	return &Forwarded{accepted: recent.New[string, time.Time](maxRemembered), refused: recent.New[string, []refusedCall](maxRemembered)}
}

// Judge takes one forwarded call: its requestId ("" when it has none),
// whether the validator fails it, the receiver's status (0 when it gave
// none), when the call came and its seq. It returns the flags the answer
// earns, none when it is right. Calls may be judged out of the order they
// came in (a fault's call is judged once its later copy is answered): a
// call is the re-delivery only of one accepted that came before it. A
// call accepted that came before calls refused and judged already
// returns their flags too, each Of the call it judges.
func (f *Forwarded) Judge(requestID string, invalid bool, status int, came time.Time, seq uint64) []Flag {
	var flags []Flag
	if invalid && is2xx(status) {
		flags = append(flags, Flag{Check: RejectsMalformed, Reason: fmt.Sprintf(
			"the receiver answered %d to a call the validator finds invalid: it cannot have understood it, so it was silently dropped", status)})
	}
	if requestID == "" {
		return flags
	}
	key := reqid.Kept(requestID) // a sender's long id, not kept whole
	acceptedCame, accepted := f.accepted.Get(key)
	if accepted && !acceptedCame.After(came) {
		if status != 0 && !is2xx(status) && !invalid {
			flags = append(flags, Flag{Check: Duplicates, Reason: fmt.Sprintf(
				"requestId %s was accepted before (2xx) and this re-delivery got %d: a re-delivered call must be accepted again", requestID, status)})
		}
		return flags
	}
	if is2xx(status) {
		f.accepted.Put(key, came) // the first to come of those accepted
		return f.refusedSince(flags, requestID, key, came, seq)
	}
	if status != 0 && !invalid {
		// Refused, and no call accepted came before it, so far.
		held, _ := f.refused.Get(key)
		if len(held) == maxRefusedKept {
			held = held[1:]
		}
		f.refused.Put(key, append(held, refusedCall{seq: seq, came: came, status: status}))
	}
	return flags
}

// refusedSince adds to flags the flag of each call refused and judged
// before, of the requestId key, that came after the call seq (came then),
// accepted: each a re-delivery refused, whose line went out without it.
func (f *Forwarded) refusedSince(flags []Flag, requestID, key string, came time.Time, seq uint64) []Flag {
	held, _ := f.refused.Get(key)
	if len(held) == 0 {
		return flags
	}
	var kept []refusedCall
	for _, r := range held {
		if came.After(r.came) {
			kept = append(kept, r) // came before this acceptance
			continue
		}
		flags = append(flags, Flag{Check: Duplicates, Of: r.seq, Reason: fmt.Sprintf(
			"requestId %s was accepted (2xx) in call #%d, which came before its re-delivery #%d and was answered after it, and the re-delivery got %d: a re-delivered call must be accepted again", requestID, seq, r.seq, r.status)})
	}
	f.refused.Put(key, kept)
	return flags
}

func is2xx(s int) bool { return s >= 200 && s < 300 }
