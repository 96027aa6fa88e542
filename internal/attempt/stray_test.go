package attempt

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/whsim/whsim/internal/testnet"
)

// A receiver that answers a call twice, the second answer coming apart
// after the first was read (and after the connection was put back idle,
// on net/http's path), leaves bytes no call asked for on the kept-alive
// connection: the next call is never answered by them. On every transport
// the look before the next call's write finds them (peekIdle, or
// net/http's reader), the call goes out on a new connection and gets its
// own answer there, one attempt, kept alive on none; the receiver reads
// it as the new connection's first call; and the stray bytes are counted
// once (Unasked: send's "answers no call asked for").
func TestStraySecondAnswerIsNoNextAnswer(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			more, wrote := make(chan struct{}), make(chan struct{})
			var once sync.Once
			tell := func() { once.Do(func() { close(more) }) }
			t.Cleanup(tell)
			var mu sync.Mutex
			var read []string // conn/k of each call the receiver read
			target := unaskedServerOver(t, nil, func(conn, k int, c net.Conn) {
				mu.Lock()
				read = append(read, fmt.Sprintf("%d/%d", conn, k))
				mu.Unlock()
				if _, err := io.WriteString(c, answer200); err != nil {
					return
				}
				if conn == 0 && k == 0 {
					<-more
					_, _ = io.WriteString(c, answer500)
					if err := testnet.WaitTaken(c); err != nil {
						t.Error(err)
					}
					close(wrote)
				}
			})
			got, d, ok := callsTo(t, target, tr, 2, func(r *Result) {
				if a := r.Last(); a.Conn != nil {
					idleAgain(a.Conn) // net/http's: its reader waits on it again
				}
				tell()
				<-wrote
			})
			if !ok {
				t.Skip("no event loops here")
			}
			if len(got) != 2 || got[0].Last().Status != 200 {
				t.Fatalf("got %d calls; want two, the first answered 200", len(got))
			}
			r := got[1]
			if a := r.Last(); len(r.Attempts) != 1 || a.Status != 200 || a.KeptAlive || a.Err != "" {
				t.Errorf("the second call: %d attempts, the last %s, kept alive %v; want one, 200 on a new connection", len(r.Attempts), brief(a), a.KeptAlive)
			}
			mu.Lock()
			defer mu.Unlock()
			if fmt.Sprint(read) != "[0/0 1/0]" {
				t.Errorf("the receiver read calls %v (connection/call), want [0/0 1/0]", read)
			}
			if n := d.Unasked(); n != 1 {
				t.Errorf("Unasked() = %d, want 1", n)
			}
		})
	}
}
