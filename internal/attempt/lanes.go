package attempt

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
