package receiver

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/fault"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// Faults puts a fault.Plan on forwarded calls (listen --forward-to
// --fault). It is safe for concurrent use.
type Faults struct {
	plan     fault.Plan
	attempts *fault.Attempts
	reorder  map[string]*fault.Reorderer // by the fault's Label
}

// NewFaults returns the faults of plan, none drawn yet.
func NewFaults(plan fault.Plan) *Faults {
	fs := &Faults{plan: plan, attempts: fault.NewAttempts(), reorder: map[string]*fault.Reorderer{}}
	for _, f := range plan.Faults {
		if f.Kind == fault.Reorder {
			fs.reorder[f.Label()] = fault.NewReorderer(f, plan.Seed)
		}
	}
	return fs
}

// drawKey is what stands for a call's requestId in the draw: the id, or
// for a call without one, a hash of its body (a re-sent copy is the same
// call again).
func drawKey(id string, body []byte) string {
	if id != "" {
		return id
	}
	h := fnv.New64a()
	h.Write(body)
	return "body:" + strconv.FormatUint(h.Sum64(), 16)
}

// requestIDOf is the requestId of a call's body: of the document it
// decodes to when it was sent with a Content-Encoding (as listen's line
// shows it), "" when it has none or does not decode.
func requestIDOf(body []byte, codings []string, limit int64) string {
	if codings == nil {
		return reqid.Read(body)
	}
	content, err := capture.DecodeContent(body, codings, limit)
	if err != nil {
		return ""
	}
	return reqid.Read(content)
}

// freshCopy is a call's body with a fresh requestId in place of its own.
type freshCopy struct {
	body []byte
	id   string
}

// withFreshID splices a fresh requestId (drawn from hi, lo) into the
// body: into the document it decodes to, coded again as it came, when it
// was sent compressed, as replay --new-request-id does. ok is false when
// it has no requestId string, or does not decode.
func withFreshID(body []byte, codings []string, limit int64, hi, lo uint64) (freshCopy, bool) {
	doc := body
	if codings != nil {
		var err error
		if doc, err = capture.DecodeContent(body, codings, limit); err != nil {
			return freshCopy{}, false
		}
	}
	start, end := reqid.Find(doc)
	if start < 0 {
		return freshCopy{}, false
	}
	fresh := spec.NewUUID(hi, lo)
	doc = reqid.Splice(doc, start, end, fresh)
	if codings == nil {
		return freshCopy{body: doc, id: fresh}, true
	}
	coded, err := capture.EncodeContent(doc, codings, body)
	if err != nil {
		return freshCopy{}, false
	}
	return freshCopy{body: coded, id: fresh}, true
}

// laterCopy is the copy a fault sends after the sender's answer
// (duplicate's second, new-request-id's under a fresh requestId): send
// sends it under ctx and puts how it fared in the fault's record; skip
// says, in the record, why it was not sent (why: the call's end, or that
// it could not be recorded).
type laterCopy struct {
	send func(ctx context.Context)
	skip func(why string)
	// inFlight says the copies went already (a burst's): send waits for
	// them, and is never skipped.
	inFlight bool
}

// forwardFaulted forwards a call under the plan: the fault the draw gives
// it, if any, decides what the receiver is sent and what the sender is
// answered. The record's own members keep what the sender sent. It says,
// as forward does, whether any of the call went out to the receiver.
// A copy the fault sends after the sender's answer is returned to send
// then (nil for none): the sender's answer does not wait for it.
func (r *Receiver) forwardFaulted(ctx context.Context, req *http.Request, body []byte) (answer, *capture.Forward, bool, *capture.Fault, *laterCopy) {
	fs := r.cfg.Faults
	codings := capture.ContentCodings(req.Header)
	id := requestIDOf(body, codings, r.cfg.MaxBody)
	key := drawKey(id, body)
	attempt := fs.attempts.Next(key)
	f, ok := fs.plan.Draw(key, attempt)
	if !ok {
		ans, fwd, sent := r.forward(ctx, req, body)
		return ans, fwd, sent, nil, nil
	}
	rf := &capture.Fault{Kind: string(f.Kind), Arg: f.Arg, Attempt: attempt, Deliveries: []capture.Delivery{}}
	// deliver sends a copy; the first copy's answer is the one the sender
	// is given and the record keeps, a later one's only its status.
	copies := 0
	var later *laterCopy
	deliverIn := func(ctx context.Context, b []byte, newID string) (answer, *capture.Forward, bool) {
		copies++
		if why := ended(ctx); why != nil {
			ans, fwd := r.unsent(req, why)
			return ans, fwd, false
		}
		forward := r.forward
		if copies > 1 {
			forward = r.forwardCopy
		}
		ans, fwd, sent := forward(ctx, req, b)
		if sent {
			// A copy that could not reach the receiver is no delivery.
			rf.Deliveries = append(rf.Deliveries, delivery(fwd, len(b), newID))
		}
		return ans, fwd, sent
	}
	deliver := func(b []byte, newID string) (answer, *capture.Forward, bool) { return deliverIn(ctx, b, newID) }
	var ans answer
	var fwd *capture.Forward
	switch f.Kind {
	case fault.Drop:
		ans = plain(http.StatusServiceUnavailable)
		rf.Sender, rf.Receiver = "503 from listen", "nothing (not forwarded)"
	case fault.Status:
		ans = plain(f.Code)
		if f.Code == http.StatusTooManyRequests || f.Code == http.StatusServiceUnavailable {
			ans.header = http.Header{"Content-Type": jsonType, "Retry-After": {"1"}}
			rf.Sender = strconv.Itoa(f.Code) + " from listen, Retry-After: 1"
		} else {
			rf.Sender = strconv.Itoa(f.Code) + " from listen"
		}
		rf.Receiver = "nothing (not forwarded)"
	case fault.LoseAnswer:
		ans, fwd, _ = deliver(body, "")
		lost := ans
		ans = plain(http.StatusGatewayTimeout)
		if fwd != nil && fwd.BodyCut != "" {
			fwd.BodyCut = notPassedOn(r.cfg.MaxBody, "listen's 504: the answer was discarded")
		}
		rf.Sender = "504 from listen"
		rf.Receiver = "the call, answered " + answerWord(lost, fwd)
		if fwd == nil || fwd.Error == "" || lost.receiverStatus != 0 {
			rf.Receiver += " (discarded)" // an answer came, whole or not
		}
	case fault.Delay:
		start := time.Now()
		switch wait(ctx, f.D, r.waitsEnd) {
		case senderGone:
			ans = plain(http.StatusServiceUnavailable)
			rf.Sender, rf.Receiver = gaveUp(ctx, "during the delay"), "nothing (not forwarded)"
		case waitCut:
			late := time.Since(start).Round(time.Millisecond).String()
			ans, fwd, _ = deliver(body, "")
			rf.Sender = senderGot(ans, fwd) + " after " + late + " (listen stopped: the " + f.D.String() + " delay cut short)"
			rf.Receiver = "the call, " + late + " late"
		default:
			ans, fwd, _ = deliver(body, "")
			rf.Sender = senderGot(ans, fwd) + " after " + f.D.String()
			rf.Receiver = "the call, " + f.D.String() + " late"
		}
	case fault.Reorder:
		held, done, err := fs.reorder[f.Label()].Hold(ctx)
		if err != nil {
			ans = plain(http.StatusServiceUnavailable)
			rf.Sender, rf.Receiver = gaveUp(ctx, "while the call was held"), "nothing (not forwarded)"
			break
		}
		ans, fwd, _ = deliver(body, "")
		done()
		rf.Sender = senderGot(ans, fwd)
		switch {
		case !held.Stopped:
			rf.Receiver = fmt.Sprintf("the call %d of %d in a shuffled window, held %s", held.Pos, held.Of, held.Waited.Round(time.Millisecond))
		case held.Of == 1:
			rf.Receiver = fmt.Sprintf("the call, held %s, then let go as listen stopped (alone in its window: not reordered)", held.Waited.Round(time.Millisecond))
		default:
			// Its window's calls went at once, not one at a time in the
			// order drawn: which came first is the receiver's to say.
			rf.Receiver = fmt.Sprintf("the call, held %s, then let go as listen stopped with the other %d calls of its window at once (in no set order)", held.Waited.Round(time.Millisecond), held.Of-1)
		}
		rf.Window = held.Of
	case fault.Truncate:
		cut := len(body) / 2
		ans, fwd, _ = deliver(body[:cut], "")
		rf.Sender = senderGot(ans, fwd)
		rf.Receiver = fmt.Sprintf("the body cut short: %d of %d bytes", cut, len(body))
	case fault.Duplicate:
		var sent bool
		ans, fwd, sent = deliver(body, "")
		rf.Sender = senderGot(ans, fwd) + " to the first copy"
		if why := ended(ctx); why != nil {
			rf.Receiver = noCopyAfter(ans, fwd, why)
			break
		}
		// The second copy goes once the sender has its answer: a
		// receiver that holds it holds listen's copy, not the sender.
		first, ffwd := ans, fwd
		rf.Receiver = "the call, answered " + answerWord(first, ffwd) + "; a second copy goes after the sender's answer" + pendingNote
		later = &laterCopy{send: func(lctx context.Context) {
			again, afwd, againSent := deliverIn(lctx, body, "")
			switch {
			case sent && againSent:
				rf.Receiver = "2 copies, one after the other, answered " + answerWord(first, ffwd) + ", " + answerWord(again, afwd)
			case !sent && !againSent:
				rf.Receiver = "nothing (not reached: " + ffwd.Error + ")"
			default:
				// A copy none of which went out is not one the receiver got.
				rf.Receiver = "1 of 2 copies, one after the other: the first " + copyWord(first, ffwd, sent) + ", the second " + copyWord(again, afwd, againSent)
			}
		}, skip: func(why string) {
			rf.Receiver = "the call, answered " + answerWord(first, ffwd) + "; no copy after it (" + why + ")"
		}}
	case fault.Burst:
		ans, fwd, later = r.burst(ctx, req, body, f.N, rf)
	case fault.NewRequestID:
		var sent bool
		ans, fwd, sent = deliver(body, "")
		copyOf, ok := withFreshID(body, codings, r.cfg.MaxBody, fault.Sub(fs.plan.Seed, key, attempt, 1), fault.Sub(fs.plan.Seed, key, attempt, 2))
		if !ok {
			rf.Sender = senderGot(ans, fwd)
			rf.Receiver = "the call only: its body has no requestId string to replace"
			break
		}
		fresh := copyOf.id
		rf.Sender = senderGot(ans, fwd) + " to its own requestId"
		if why := ended(ctx); why != nil {
			rf.Receiver = noCopyAfter(ans, fwd, why)
			break
		}
		// The copy goes once the sender has its answer, as duplicate's.
		first, ffwd := ans, fwd
		rf.Receiver = "the call, answered " + answerWord(first, ffwd) + "; the same document under a fresh requestId goes after the sender's answer" + pendingNote
		later = &laterCopy{send: func(lctx context.Context) {
			again, afwd, againSent := deliverIn(lctx, copyOf.body, fresh)
			switch {
			case sent && againSent:
				rf.Receiver = "the call, answered " + answerWord(first, ffwd) + ", then the same document as requestId " + fresh + ", answered " + answerWord(again, afwd)
			case sent:
				// A copy none of which went out is not one the receiver got.
				rf.Receiver = "the call, answered " + answerWord(first, ffwd) + "; not the same document as requestId " + fresh + " (not reached: " + afwd.Error + ")"
			case againSent:
				rf.Receiver = "not the call (not reached: " + ffwd.Error + "), then the same document as requestId " + fresh + ", answered " + answerWord(again, afwd)
			default:
				rf.Receiver = "nothing (not reached: " + ffwd.Error + "; the same document as requestId " + fresh + ": " + afwd.Error + ")"
			}
		}, skip: func(why string) {
			rf.Receiver = "the call, answered " + answerWord(first, ffwd) + "; not the same document under a fresh requestId (" + why + ")"
		}}
	}
	if why := ended(ctx); why != nil && !strings.HasPrefix(rf.Sender, "nothing") {
		// Its connection is closed: whatever listen would have answered,
		// the sender gets nothing, and no copy goes after it.
		rf.Sender = gaveUp(ctx, "before the answer")
		if later != nil && !later.inFlight {
			later.skip(why.Error() + " first")
			later = nil
		}
		if len(rf.Deliveries) == 0 && later == nil && !strings.HasPrefix(rf.Receiver, "nothing") {
			// Ended before its first copy could go.
			rf.Receiver = "nothing (" + why.Error() + " before it was sent)"
		}
	}
	if f.Forwards() && len(rf.Deliveries) == 0 && fwd != nil && fwd.Error != "" && !strings.HasPrefix(rf.Receiver, "nothing") {
		// No copy reached it: whatever the fault was to do to the
		// call, the receiver got none of it.
		if later == nil {
			rf.Receiver = "nothing (not reached: " + fwd.Error + ")"
		}
	}
	return ans, fwd, len(rf.Deliveries) > 0, rf, later
}

// pendingNote ends the words of a fault whose copy goes after the
// sender's answer, as its record, written before that answer, holds them.
const pendingNote = " (this record was written before it went: listen's output says how it fared)"

// errSenderGaveUp is why a faulted call's copies were not sent when its
// sender closed its connection first: with no one to answer, listen sends
// nothing more on its behalf (a copy forwarded with the ended context would
// fail at once, unsent, and read as sent).
const errSenderGaveUp = forwardError("the sender gave up")

// ended is why the call whose context is ctx can no longer be answered:
// listen's stop cut it short, or its sender gave up; nil while it can.
func ended(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if cut := stopCause(ctx); cut != nil {
		return cut
	}
	return errSenderGaveUp
}

// gaveUp is what the sender of a call whose context ended during a
// fault's wait got: nothing, because it gave up or because listen's stop
// cut the call short.
func gaveUp(ctx context.Context, during string) string {
	if cut := stopCause(ctx); cut != nil {
		return "nothing (" + cut.Error() + " " + during + ")"
	}
	return "nothing (it gave up " + during + ")"
}

// unsent is the answer and forward of a copy that the stop, or the sender
// giving up (why, as ended says), kept from going, its call's connection
// closed: it is not sent, nor counted as sent.
func (r *Receiver) unsent(req *http.Request, why error) (answer, *capture.Forward) {
	named, _ := target(r.cfg.ForwardTo, req)
	return plain(http.StatusBadGateway), &capture.Forward{URL: named.String(), Error: why.Error() + " before it was sent"}
}

// noCopyAfter is what the receiver got of a call whose first copy went
// (answered ans, fwd) and whose next the stop or the sender giving up
// (why) kept from going.
func noCopyAfter(ans answer, fwd *capture.Forward, why error) string {
	return "the call, answered " + answerWord(ans, fwd) + "; no copy after it (" + why.Error() + " first)"
}

// burst sends n copies of the call at once; the sender gets the first
// answer to come (the copy whose answer's head came first keeps its
// body), not the last: a receiver that holds one copy holds listen's
// copy, not the sender. The copies go apart from the sender's call (under
// the server's stop where it came through one), and what the record
// says of those still out when it is written is made whole by the
// returned laterCopy, which waits for them.
func (r *Receiver) burst(ctx context.Context, req *http.Request, body []byte, n int, rf *capture.Fault) (answer, *capture.Forward, *laterCopy) {
	type result struct {
		ans  answer
		fwd  *capture.Forward
		sent bool
	}
	if why := ended(ctx); why != nil {
		ans, fwd := r.unsent(req, why)
		rf.Receiver = burstWord(n, nil, nil)
		return ans, fwd, nil
	}
	cctx := context.WithoutCancel(ctx)
	if aa, ok := req.Context().Value(afterAnswerKey{}).(afterAnswer); ok {
		cctx = context.WithValue(aa.base, answerHolderKey{}, ctx.Value(answerHolderKey{}))
	}
	res := make([]result, n)
	var first atomic.Int32 // 1 + the copy whose answer came first, 0 for none yet
	done := make(chan int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			keep := func() bool { return first.CompareAndSwap(0, int32(i+1)) }
			res[i].ans, res[i].fwd, res[i].sent = r.forwardAnswer(cctx, req, body, keep)
			done <- i
		}()
	}
	close(start) // every copy waits for this: they leave together
	finished := make([]bool, n)
	left := n
	for left > 0 {
		var i int
		select {
		case i = <-done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		finished[i] = true
		left--
		if f := first.Load(); f > 0 && finished[f-1] {
			break
		}
	}
	fill := func(all bool) {
		rf.Deliveries = rf.Deliveries[:0]
		var words, unreached []string
		for i := range res {
			if !all && !finished[i] {
				continue // still being written by its copy
			}
			x := res[i]
			if x.sent {
				rf.Deliveries = append(rf.Deliveries, delivery(x.fwd, len(body), ""))
				words = append(words, statusWord(x.ans, x.fwd))
			} else {
				unreached = append(unreached, x.fwd.Error)
			}
		}
		if all {
			rf.Receiver = burstWord(n, words, unreached)
		}
	}
	pick := 0
	if f := first.Load(); f > 0 && finished[f-1] {
		pick = int(f - 1)
	}
	var ans answer
	var fwd *capture.Forward
	switch {
	case ctx.Err() == nil && first.Load() > 0:
		ans, fwd = res[pick].ans, res[pick].fwd
		rf.Sender = senderGot(ans, fwd) + " to the first copy answered"
	case ctx.Err() == nil:
		// No answer came to any copy: copy 1's failure stands for all.
		ans, fwd = res[0].ans, res[0].fwd
		rf.Sender = senderGot(ans, fwd) + " to copy 1"
	default:
		// The sender gave up, or the stop cut its call, before an answer
		// came: it gets none.
		named, _ := target(r.cfg.ForwardTo, req)
		ans, fwd = plain(http.StatusBadGateway), &capture.Forward{URL: named.String(), Error: ended(ctx).Error() + " before the receiver answered a copy"}
	}
	if left == 0 {
		fill(true)
		return ans, fwd, nil
	}
	fill(false)
	rf.Receiver = fmt.Sprintf("%d copies at once, %d of them done when this record was written (listen's output says how the others fared)", n, n-left)
	return ans, fwd, &laterCopy{inFlight: true, send: func(context.Context) {
		wg.Wait()
		fill(true)
	}}
}

// burstWord is what the receiver got of a burst of n copies: the copies
// that went out (ds) with their answers, and how many did not reach it
// and why (unreached; the first reason stands for all, as they are
// copies sent together).
func burstWord(n int, words []string, unreached []string) string {
	if len(unreached) == 0 {
		return strconv.Itoa(n) + " copies at once, answered " + strings.Join(words, ", ")
	}
	return fmt.Sprintf("%d of %d copies at once, answered %s; %d not reached (%s)",
		len(words), n, strings.Join(words, ", "), len(unreached), unreached[0])
}

// copyWord is what became of one copy of a call: its answer, or that none
// of it went out to the receiver, and why.
func copyWord(a answer, fwd *capture.Forward, sent bool) string {
	if !sent {
		return "not reached (" + fwd.Error + ")"
	}
	return "answered " + answerWord(a, fwd)
}

func delivery(fwd *capture.Forward, n int, newID string) capture.Delivery {
	return capture.Delivery{RequestID: newID, Bytes: n, Status: fwd.Status, Error: fwd.Error, LatencyMS: fwd.LatencyMS}
}

// answerWord is a forwarded call's answer in a word: the receiver's
// status, or none and why (it may never have reached the receiver).
func answerWord(a answer, fwd *capture.Forward) string {
	if fwd != nil && fwd.Error != "" {
		if a.receiverStatus != 0 {
			return notWhole(a) + " (" + fwd.Error + ")"
		}
		return "none (" + fwd.Error + ")"
	}
	return strconv.Itoa(a.status)
}

// statusWord is a copy's answer in a word, without why it failed.
func statusWord(a answer, fwd *capture.Forward) string {
	switch {
	case fwd == nil || fwd.Error == "":
		return strconv.Itoa(a.status)
	case a.receiverStatus != 0:
		return notWhole(a)
	}
	return "no answer"
}

// notWhole is an answer that began with the receiver's status and did
// not come whole (cut short, over the limit) or came malformed: it took
// the call.
func notWhole(a answer) string {
	if a.malformed {
		return "a " + strconv.Itoa(a.receiverStatus) + " malformed"
	}
	return "a " + strconv.Itoa(a.receiverStatus) + " not read whole"
}

// senderGot is what the sender of a forwarded call was answered: the
// receiver's status, or listen's own when the forward failed.
func senderGot(a answer, fwd *capture.Forward) string {
	if fwd != nil && fwd.Error != "" {
		return "listen's " + strconv.Itoa(a.status) + " (the forward failed)"
	}
	return "the receiver's " + strconv.Itoa(a.status)
}

// waited is how a wait ended.
type waited int

const (
	waitPassed waited = iota // its time passed
	waitCut                  // listen stopped (EndWaits)
	senderGone               // the call's context ended: the sender left
)

// wait waits d, or until ctx ends or end is closed.
func wait(ctx context.Context, d time.Duration, end <-chan struct{}) waited {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return waitPassed
	case <-ctx.Done():
		return senderGone
	case <-end:
		return waitCut
	}
}

// release lets every held call go, and later ones through unheld.
func (fs *Faults) release() {
	for _, ro := range fs.reorder {
		ro.Release()
	}
}

// Plan is the plan the faults follow.
func (fs *Faults) Plan() fault.Plan { return fs.plan }
