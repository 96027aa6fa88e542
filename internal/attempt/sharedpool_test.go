package attempt

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A call made again after a kept-alive connection was found closed leaves
// the pool's other connections alone: one of them may carry another
// call's answer. net/http puts a connection back idle before it hands a
// bodyless answer to its call (PutIdleConn comes in between), and a
// connection closed then fails that call ("CloseIdleConnections called"),
// which the receiver answered. Against a receiver that closes every
// connection after a bodyless 200, with no Connection: close, the calls
// made at once by check or send each met that now and then.
//
// The test holds that moment open, round after round. B0's connection Y,
// closed by the receiver after its answer, is held idle (B0's PutIdleConn
// hook waits) until B asks for a connection; B takes Y and finds it
// closed. Before B's call is made again, A is answered and its connection
// X put idle, A's hook waiting. Once B asks for another connection, A's
// hook lets net/http hand A its answer, unless X was closed (what
// whsim did before: then A's call has failed already, and the hook waits
// for B's end, so that nothing makes up for it). A round where net/http
// had closed Y before B could take it meets nothing, so there are
// several, and at least one must meet.
func TestCallMadeAgainLeavesThePoolAlone(t *testing.T) {
	for _, p := range paths[:2] { // the paths through net/http
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := testnet.NewOneCallServer(t)
			met := 0
			for round := range 20 {
				if poolRound(t, srv, p.follow, round) {
					met++
				}
				if t.Failed() {
					return
				}
			}
			if met == 0 {
				t.Error("in no round did B take a connection found closed with A's answer held: the test tested nothing")
			}
		})
	}
}

// poolRound is one round of TestCallMadeAgainLeavesThePoolAlone: it says
// whether B took Y and A's answer was held as B's call was made again.
func poolRound(t *testing.T, srv *testnet.OneCallServer, follow bool, round int) (met bool) {
	c, err := newTestClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 2, FollowRedirects: follow})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	d := &Deliverer{Client: c, Target: srv.URL()}
	who := func(name string) []byte { return []byte(`{"round":` + strconv.Itoa(round) + `,"who":"` + name + `"}`) }
	a, b0, b := who("A"), who("B0"), who("B")
	gateA, gateB0 := srv.Gate(string(a)), srv.Gate(string(b0))
	var openA sync.Once
	letA := func() { openA.Do(func() { close(gateA) }) }

	aIn, b0In, bFirst, bSecond, bDone := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	aDone, b0Done := make(chan struct{}), make(chan struct{})
	var x atomic.Pointer[watchConn] // A's connection
	aCtx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			if wc, ok := i.Conn.(*watchConn); ok {
				x.Store(wc)
			}
		},
		PutIdleConn: func(err error) {
			if err != nil {
				return
			}
			// X is idle; its answer waits here for B's next connection.
			close(aIn)
			select {
			case <-bSecond:
			case <-bDone:
			}
			if wc := x.Load(); wc != nil && wc.closed.Load() {
				<-bDone // X was closed under A's answer: A has failed
			}
		},
	})
	b0Ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		PutIdleConn: func(err error) {
			if err != nil {
				return
			}
			// Y, closed by the receiver, is idle: it stays so until B
			// asks for a connection.
			close(b0In)
			<-bFirst
		},
	})
	gets, gots := 0, 0
	bCtx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GetConn: func(string) {
			gets++
			switch gets {
			case 1:
				close(bFirst)
			case 2:
				close(bSecond)
			}
		},
		GotConn: func(i httptrace.GotConnInfo) {
			gots++
			letA()
			if gots == 1 && i.Reused {
				// B has Y, found closed: A's answer comes, and X is put
				// idle, before B's call is made again.
				srv.WaitTaken(string(a))
				select {
				case <-aIn:
					met = true
				case <-aDone:
				}
			}
		},
	})

	results := make([]*Result, 3)
	var wg sync.WaitGroup
	wg.Go(func() { defer close(aDone); results[0] = d.Deliver(aCtx, &Request{Body: a}) })
	srv.WaitRead(string(a))
	wg.Go(func() { defer close(b0Done); results[1] = d.Deliver(b0Ctx, &Request{Body: b0}) })
	srv.WaitRead(string(b0))
	close(gateB0)
	srv.WaitTaken(string(b0))
	select {
	case <-b0In:
	case <-b0Done: // not put idle: nothing to meet this round
	}
	wg.Go(func() {
		defer close(bDone)
		defer letA()
		results[2] = d.Deliver(bCtx, &Request{Body: b})
	})
	wg.Wait()
	for i, r := range results {
		if !r.OK {
			t.Errorf("round %d, call %s: %s, want 200 (the receiver answered it)", round, []string{"A", "B0", "B"}[i], brief(r.Last()))
		}
	}
	for _, body := range [][]byte{a, b0, b} {
		if n := srv.Calls(string(body)); n != 1 {
			t.Errorf("round %d: the receiver read %s %d times, want once", round, body, n)
		}
	}
	return met
}

// An attempt is made again for unfit kept-alive connections more often
// than the client's pool holds idle ones (each unfit one is dropped as it
// is found), so that the last try goes out on a new connection however
// many connections a receiver that closes every one left in the pool.
func TestUnfitTriesOutnumberThePool(t *testing.T) {
	for _, tt := range []struct {
		conc   int
		follow bool
		want   int
	}{
		{1, false, maxUnfitTries},
		{40, false, 40},
		{40, true, 40},
		{500, false, 500},
	} {
		c, err := NewClient(ClientOptions{Timeout: time.Second, Concurrency: tt.conc, FollowRedirects: tt.follow})
		if err != nil {
			t.Fatal(err)
		}
		if got := unfitTries(c.Transport); got != tt.want {
			t.Errorf("concurrency %d, following redirects %v: %d tries again, want %d", tt.conc, tt.follow, got, tt.want)
		}
	}
	if got := unfitTries(http.DefaultTransport); got != maxUnfitTries {
		t.Errorf("a transport not NewClient's: %d tries again, want %d", got, maxUnfitTries)
	}
}
