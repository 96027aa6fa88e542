package attempt

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// The event loops' lanes hand a call their socket did not take whole to
// the worker's path, which decides it as a worker's own (rawAnswer): a
// 200 before the body went whole fails there too.
func TestAnsweredBeforeTheBodyWasSentWholeOnALane(t *testing.T) {
	tmpl := Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	want := BodyUnsentWords + " (its write of " + strconv.Itoa(len(tmpl.Body)) + " bytes cut: "
	u, _ := closingEarlyServer(t, answeredEarly, false)
	c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: u}
	n := 0
	ran := asLanes(context.Background(), d, [][]Template{{tmpl}}, 4, func(r *Result) {
		n++
		answeredEarlyFails(t, n, r, want)
	})
	if !ran || n != 4 {
		t.Errorf("lanes ran %v, %d deliveries; want 4 on the event loops", ran, n)
	}
}
