package attempt

import (
	"io"
	"net"
	"testing"
)

// The fast path takes the sockets net/http's dial watches for its own,
// and never closes them through the watch: they leave the client's open
// connections as they are taken (unwatch), or a long run's reconnections
// would each stay there, for the end of the run to settle (with unwrap
// in dialRaw, 5 stayed here).
func TestFastPathLeavesNoWatchOpen(t *testing.T) {
	target := unaskedServer(t, func(_, _ int, c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	})
	got, d, _ := callsTo(t, target, "worker", 5, nil)
	if len(got) != 5 || !got[4].OK {
		t.Fatalf("got %d calls; want 5, the last passed", len(got))
	}
	n := d.notes()
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.open) != 0 {
		t.Errorf("%d watched connections open after 5 calls on the fast path, each on a new connection; want none", len(n.open))
	}
}
