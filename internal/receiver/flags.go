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
}

// NewForwarded returns a judge that has seen no call yet.
func NewForwarded() *Forwarded {
	return &Forwarded{accepted: recent.New[string, time.Time](maxRemembered)}
}

// Judge takes one forwarded call: its requestId ("" when it has none),
// whether the validator fails it, the receiver's status (0 when it gave
// none) and when the call came. It returns the flags the answer earns,
// none when it is right. Calls may be judged out of the order they came
// in (a fault's call is judged once its later copy is answered): a call is
// the re-delivery only of one accepted that came before it.
func (f *Forwarded) Judge(requestID string, invalid bool, status int, came time.Time) []Flag {
	var flags []Flag
	if invalid && is2xx(status) {
		flags = append(flags, Flag{RejectsMalformed, fmt.Sprintf(
			"the receiver answered %d to a call the validator finds invalid: it cannot have understood it, so it was silently dropped", status)})
	}
	if requestID == "" {
		return flags
	}
	key := reqid.Kept(requestID) // a sender's long id, not kept whole
	acceptedCame, accepted := f.accepted.Get(key)
	if accepted && !acceptedCame.After(came) {
		if status != 0 && !is2xx(status) && !invalid {
			flags = append(flags, Flag{Duplicates, fmt.Sprintf(
				"requestId %s was accepted before (2xx) and this re-delivery got %d: a re-delivered call must be accepted again", requestID, status)})
		}
		return flags
	}
	if is2xx(status) {
		f.accepted.Put(key, came) // the first to come of those accepted
	}
	return flags
}

func is2xx(s int) bool { return s >= 200 && s < 300 }
