package attempt

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// A worker's calls without a body through net/http leave its buffer's
// count of bodies net/http is still writing at 0: the write's hook took
// one off a count no body had put on (-1 after the first call), so every
// later delivery took a new buffer, and a late hook of such a call could
// take off the count of a body net/http still read (found by at44).
func TestBodylessCallsLeaveTheWorkersCountAlone(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, NetHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	d := &Deliverer{Client: c, Target: u}
	var bb *Buf
	var first *Buf
	for i := range 3 {
		if res := d.DeliverWith(context.Background(), &Request{Body: nil}, &bb); !res.OK {
			t.Fatalf("call %d: %+v", i+1, res.Last())
		}
		if n := bb.open.Load(); n != 0 {
			t.Errorf("after call %d: %d bodies counted open, want 0", i+1, n)
		}
		if first == nil {
			first = bb
		} else if bb != first {
			t.Errorf("call %d took a new buffer: the worker's was counted open", i+1)
		}
	}
	bb.Release()
}
