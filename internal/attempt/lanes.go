package attempt

import "errors"

// Lanes is a closed run (a fixed number of deliveries in flight, each
// lane starting its next when its last ends) as Deliverer.RunLanes makes
// it on event loops. Its functions are called by several loops at once.
type Lanes struct {
	// N is the number of lanes: deliveries in flight at once.
	N int
	// Take is the next job, deliveries a lane makes in order (a
	// scenario's events for one document); nil when none is left or the
	// run is over.
	Take func() []*Request
	// Over says whether no delivery may start any more.
	Over func() bool
	// Done hears of each finished delivery of a lane (0 ≤ lane < N). The
	// Result, and the body of a request from a template, are in buffers
	// the lane reuses: valid until Done returns.
	Done func(lane int, res *Result)
	// Skip hears of n deliveries of a lane's job it took and did not
	// start: the run was over.
	Skip func(lane, n int)
}

// errIncomplete is an answer a loop has only part of so far: it reads on
// (never shown).
var errIncomplete = errors.New("answer incomplete")

// answerReader reads what a lane has of an answer, then says how it ends:
// the connection's close or error, or errIncomplete while it may bring
// more. An answer is parsed whole from its start each time more of it
// comes, by the code that reads one from a connection (readAnswer), so
// that both paths take the same answers the same way; most come in one
// read.
type answerReader struct {
	b   []byte
	end error
}

func (r *answerReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.end
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// loops says whether the Deliverer's closed runs may be made on event
// loops: plain HTTP with no proxy to the target (the worker's fast path,
// whose code the loops share), the fast path not switched off
// (WHSIM_TRANSPORT), and answers read lean (KeepBody reads them with
// net/http's parser, which a loop does not run).
func (d *Deliverer) loops() bool {
	dt, ok := d.Client.Transport.(directTransport)
	return ok && !dt.netHTTP && !dt.noLoops && d.Client.Jar == nil && d.Client.Timeout > 0 &&
		!d.KeepBody && rawOK(dt.Transport, d.Target)
}
