package attempt

import (
	"context"
	"testing"
	"time"
)

// A call that went out on a connection kept alive after an answer says
// so, answered or not: a receiver that answers a connection's first call
// only shows itself by it (check names it). NewConnectionEachCall's calls
// each go on a new connection, where such a receiver answers.
func TestKeptAliveAndNewConnectionEachCall(t *testing.T) {
	t.Parallel()
	srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
		if k > 0 {
			return "", false, false, true // a later call on a connection: held
		}
		return ok200, false, false, false
	})
	c, err := NewClient(ClientOptions{Timeout: 3 * time.Second, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	call := func(d *Deliverer) Attempt {
		return d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last()
	}
	d := &Deliverer{Client: c, Target: srv.url()}
	if a := call(d); a.Status != 200 || a.KeptAlive {
		t.Fatalf("the first call: status %d, kept alive %v; want 200 on a new connection", a.Status, a.KeptAlive)
	}
	if a := call(d); a.Kind != KindTimeout || !a.KeptAlive {
		t.Fatalf("the second call: status %d, kind %q, kept alive %v; want a timeout on the kept-alive connection", a.Status, a.Kind, a.KeptAlive)
	}
	fresh := &Deliverer{Client: NewConnectionEachCall(c), Target: srv.url()}
	for i := range 3 {
		if a := call(fresh); a.Status != 200 || a.KeptAlive {
			t.Errorf("call %d on a new connection each: status %d, kind %q, kept alive %v; want 200 on a new connection", i, a.Status, a.Kind, a.KeptAlive)
		}
	}
}
