package load

import (
	"math"
	"math/rand/v2"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/reqid"
)

// feed produces the deliveries of a send run from pools of templates. Each
// round takes the next group from every lane (one lane per event, or one
// for a scenario whose groups are the events of one document). It is used
// from one goroutine.
type feed struct {
	lanes     [][][]attempt.Template
	rounds    int // 0: until the run stops it
	round     int
	duplicate float64
	shuffle   bool
	rng       *rand.Rand
	ids       *reqid.IDs
	seq       int
	// docBase is the serial of the run's first document (see docSerial);
	// based, until the first fill, says it is not drawn yet.
	docBase uint64
	based   bool
	// docKeys are the documents whose numbers the user set that went out
	// (Template.DocKey): as many as the pool's bodies at most.
	docKeys map[uint64]struct{}

	out     [][]*attempt.Request // ready to hand out from out[head]
	head    int
	pending []pendingDup
	// reqs and ptrs are slabs the requests and jobs are cut from: one
	// allocation for many deliveries rather than two for each.
	reqs []attempt.Request
	ptrs []*attempt.Request
}

// slabLen is how many requests a slab holds.
const slabLen = 256

type pendingDup struct {
	due int // the round after which it goes out
	req *attempt.Request
}

// shuffleWindow is how many deliveries --shuffle mixes at a time: enough to
// reorder a scenario's events, bounded so memory stays flat.
const shuffleWindow = 64

// NewFeed returns a feed of rounds rounds (0: unbounded) over lanes; each
// lane is a pool of groups cycled in turn.
func NewFeed(lanes [][][]attempt.Template, rounds int, duplicate float64, shuffle bool, seed uint64) *feed {
	ids := reqid.NewIDs(seed)
	return &feed{
		lanes: lanes, rounds: rounds, duplicate: duplicate, shuffle: shuffle,
		rng: rand.New(rand.NewPCG(ids.Seed(), 0x9e3779b97f4a7c15)), ids: ids,
	}
}

// WithNonce gives the feed's deliveries requestIds of their own under
// nonce (reqid.Mix); 0 keeps the seed's, those `generate --seed` prints.
// Which calls are duplicated and the shuffled order stay the seed's. It is
// called before the first Next.
func (f *feed) WithNonce(nonce uint64) *feed {
	f.ids.Mix(nonce)
	return f
}

// Next returns the next group of deliveries, nil at the end.
func (f *feed) Next() []*attempt.Request {
	if f.head == len(f.out) {
		f.out, f.head = f.out[:0], 0
		if !f.fill() {
			return nil
		}
	}
	job := f.out[f.head]
	f.out[f.head] = nil
	f.head++
	return job
}

// fill prepares the next round (or, shuffling, a window of them) and the
// duplicates that fall due into the empty f.out; false when nothing is
// left.
func (f *feed) fill() bool {
	n := 1
	if f.shuffle {
		n = shuffleWindow
	}
	for len(f.out) < n {
		if f.rounds > 0 && f.round >= f.rounds {
			break
		}
		for li, lane := range f.lanes {
			group := lane[f.round%len(lane)]
			doc := f.docSerial(f.round*len(f.lanes) + li)
			// A group without document numbers to make anew is the
			// same document every time it comes round again, and the
			// same call when its requestId is not made anew either;
			// one whose numbers the user set is the document those
			// numbers name (DocKey), whichever body carries them. A
			// file's payload may repeat an earlier one's call or
			// document.
			t := &group[0]
			same := f.round >= len(lane) && len(t.DocOffs) == 0
			again := same && t.IDOff < 0 || t.Resent
			known := t.KnownDocument || same
			if t.DocKey != 0 {
				known = known || f.seenDoc(t.DocKey)
			}
			job := f.job(len(group))
			for i := range group {
				job[i] = f.make(&group[i], doc, i == 0 && !again && !known, again)
			}
			f.out = append(f.out, job)
		}
		f.round++
		f.out = f.due(f.out, false)
	}
	if len(f.out) == 0 {
		f.out = f.due(f.out, true)
		if len(f.out) == 0 {
			return false
		}
	}
	if f.shuffle {
		// A job is one document's calls, the first of them counting the
		// document (Request.Document). Shuffled, its void may go out
		// before its create, and a run cut short may send the void
		// alone: the document counts with whichever of its calls goes
		// out first, so that documents is what the calls sent carried.
		var flat [][]*attempt.Request
		var owner []int // the job of flat[i]
		var counts []bool
		for ji, job := range f.out {
			counts = append(counts, len(job) > 0 && job[0].Document)
			for _, r := range job {
				r.Document = false
				flat = append(flat, []*attempt.Request{r})
				owner = append(owner, ji)
			}
		}
		f.rng.Shuffle(len(flat), func(i, j int) {
			flat[i], flat[j] = flat[j], flat[i]
			owner[i], owner[j] = owner[j], owner[i]
		})
		// --duplicate re-delivers a call later: a re-delivery the shuffle
		// put before its call changes places with it, so that the first
		// to go out is the delivery (a requestId that more than one
		// delivery carries, as --set requestId makes, is left as drawn).
		first, orig, delivered := map[string]int{}, map[string]int{}, map[string]int{}
		for i, job := range flat {
			id := job[0].RequestID
			if id == "" {
				continue
			}
			if _, ok := first[id]; !ok {
				first[id] = i
			}
			if !job[0].Duplicate {
				orig[id] = i
				delivered[id]++
			}
		}
		for id, o := range orig {
			if at := first[id]; delivered[id] == 1 && at < o {
				flat[at], flat[o] = flat[o], flat[at]
				owner[at], owner[o] = owner[o], owner[at]
			}
		}
		for i, job := range flat {
			if counts[owner[i]] && !job[0].Duplicate {
				job[0].Document, counts[owner[i]] = true, false
			}
		}
		f.out = flat
	}
	for _, job := range f.out {
		for _, r := range job {
			f.seq++
			r.Seq = f.seq
		}
	}
	return true
}

// job returns room for a job of n requests, cut from a slab.
func (f *feed) job(n int) []*attempt.Request {
	if len(f.ptrs) < n {
		f.ptrs = make([]*attempt.Request, max(n, slabLen))
	}
	job := f.ptrs[:n:n]
	f.ptrs = f.ptrs[n:]
	return job
}

// docSerial is the serial of the run's n-th document (from 0): distinct
// for every document of a run up to attempt.DocSerials, from a base the
// run's ids follow, so that --fixed-ids repeats the numbers and any other
// run has numbers of its own.
func (f *feed) docSerial(n int) uint64 {
	if !f.based {
		// splitmix64's finalizer: a seed's base spread over the range.
		z := f.ids.Seed() + 0x9e3779b97f4a7c15
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		f.docBase, f.based = (z^z>>31)%attempt.DocSerials, true
	}
	return (f.docBase + uint64(n)) % attempt.DocSerials
}

// seenDoc reports whether a delivery of the document key names went out
// before, and notes that one does now.
func (f *feed) seenDoc(key uint64) bool {
	if f.docKeys == nil {
		f.docKeys = map[uint64]struct{}{}
	}
	_, ok := f.docKeys[key]
	f.docKeys[key] = struct{}{}
	return ok
}

// make is a delivery of t for document serial doc: the document's first
// (first), or a body sent again (again: a deliberate repeat, counted as a
// duplicate).
func (f *feed) make(t *attempt.Template, doc uint64, first, again bool) *attempt.Request {
	if len(f.reqs) == 0 {
		f.reqs = make([]attempt.Request, slabLen)
	}
	r := &f.reqs[0]
	f.reqs = f.reqs[1:]
	*r = attempt.Request{Event: t.Event, Query: t.Query, Header: t.Header, Body: t.Body, RequestID: t.RequestID, NoRequestID: t.NoRequestID,
		Document: first && !t.NoDocument, NoDocument: t.NoDocument, Duplicate: again}
	if t.IDOff >= 0 || len(t.DocOffs) > 0 {
		// The body is made when the request is delivered (Request.tmpl).
		id := t.RequestID
		if t.IDOff >= 0 {
			id = f.ids.For(t.Event)
		}
		r.FromTemplate(t, id, doc)
	}
	if f.duplicate > 0 && f.rng.Float64() < f.duplicate {
		dup := *r
		dup.Duplicate, dup.Document = true, false
		// At-least-once senders re-deliver a little later, not at once.
		f.pending = append(f.pending, pendingDup{due: f.round + 1 + f.rng.IntN(8), req: &dup})
	}
	return r
}

// due appends to out the duplicates whose round has come (all of them at
// the end).
func (f *feed) due(out [][]*attempt.Request, all bool) [][]*attempt.Request {
	keep := f.pending[:0]
	for _, p := range f.pending {
		if all || p.due <= f.round {
			out = append(out, []*attempt.Request{p.req})
		} else {
			keep = append(keep, p)
		}
	}
	f.pending = keep
	return out
}

// Left is how many deliveries the feed has still to hand out, -1 for a
// feed without end; it ends the feed. The rounds not made are counted, not
// walked: --count 99999999999 stopped by Ctrl-C must print its summary at
// once, not after a loop over every round it never made. Their duplicates
// are drawn as they would have been, without building a request, for the
// first leftDraws calls; beyond that (a run cut short of billions of calls)
// the rest add their expected share, a draw that nothing would ever send.
func (f *feed) Left() int {
	if f.rounds == 0 {
		return -1
	}
	n := len(f.pending)
	for _, job := range f.out[f.head:] {
		n += len(job)
	}
	if f.duplicate > 0 {
		drawn := 0
		for ; f.round < f.rounds && drawn < leftDraws; f.round++ {
			for _, lane := range f.lanes {
				g := len(lane[f.round%len(lane)])
				n += g
				drawn += g
				for range g {
					if f.rng.Float64() < f.duplicate {
						n++
						f.rng.IntN(8) // as make draws, so the next draw is the same
					}
				}
			}
		}
	}
	rest := f.callsIn(f.round, f.rounds)
	n += rest
	if f.duplicate > 0 {
		n += int(math.Round(float64(rest) * f.duplicate))
	}
	f.round = f.rounds
	f.out, f.head, f.pending = nil, 0, nil
	return n
}

// leftDraws bounds the duplicate draws Left makes (a few tens of
// milliseconds of them).
const leftDraws = 1 << 22

// callsIn is how many calls rounds from up to (not including) to hold:
// round r takes group r mod len(lane) of each lane.
func (f *feed) callsIn(from, to int) int {
	n := 0
	for _, lane := range f.lanes {
		size := len(lane)
		for i, group := range lane {
			n += len(group) * (roundsAt(to, size, i) - roundsAt(from, size, i))
		}
	}
	return n
}

// roundsAt is how many of the rounds before end are round i of a cycle of
// size: the r < end with r mod size == i.
func roundsAt(end, size, i int) int {
	n := end / size
	if end%size > i {
		n++
	}
	return n
}
