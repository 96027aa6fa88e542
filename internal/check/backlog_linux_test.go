package check

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// oneAtATime is a listener that hands out a connection only once the one
// before is closed: a single-threaded server (Python's http.server), whose
// listen backlog fills while it serves.
type oneAtATime struct {
	net.Listener
	free chan struct{}
}

func (l *oneAtATime) Accept() (net.Conn, error) {
	<-l.free
	c, err := l.Listener.Accept()
	if err != nil {
		l.free <- struct{}{}
		return nil, err
	}
	return &releasing{Conn: c, free: l.free}, nil
}

type releasing struct {
	net.Conn
	free chan struct{}
	once sync.Once
}

func (c *releasing) Close() error {
	c.once.Do(func() { c.free <- struct{}{} })
	return c.Conn.Close()
}

// tinyBacklog listens on loopback with a listen backlog of 1, which
// net.Listen cannot set.
func tinyBacklog(t *testing.T) net.Listener {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skip("socket:", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		t.Skip("bind:", err)
	}
	if err := syscall.Listen(fd, 1); err != nil {
		syscall.Close(fd)
		t.Skip("listen:", err)
	}
	f := os.NewFile(uintptr(fd), "backlog-1")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		t.Skip("FileListener:", err)
	}
	return ln
}

// A receiver that answers at once but serves one connection at a time
// behind a listen backlog of 1: the 8 copies the duplicates check sends
// together overflow it, the kernel drops their handshakes, and the client
// tries again a second later. Latency must name that, not the handler.
func TestFullListenBacklog(t *testing.T) {
	ln := tinyBacklog(t)
	l := &oneAtATime{Listener: ln, free: make(chan struct{}, 1)}
	l.free <- struct{}{}
	srv := &http.Server{Handler: newReceiver(t, defects{ignoreSig: true})}
	srv.SetKeepAlivesEnabled(false) // HTTP/1.0 style: a connection per call
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	cfg := testConfig(t, "http://"+ln.Addr().String())
	cfg.Signer = nil
	cfg.Checks = []string{acceptsValid, duplicates, Latency}
	cfg.LatencyBudget = 500 * time.Millisecond
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	lat := ofCheck(results, Latency)
	if len(lat) != 1 || sum.Checks[Latency].Fail != 1 {
		// No handshake was dropped: this kernel queued them all.
		t.Skipf("latency %+v: the backlog did not overflow here", *sum.Checks[Latency])
	}
	t.Log(lat[0].Reason)
	// Calls that waited in the queue behind a slow one may be slow too
	// on a loaded machine ("answer first" after it); the backlog must be
	// named, and first.
	why := lat[0].Reason
	if i, j := strings.Index(why, "listen backlog"), strings.Index(why, "answer first"); i < 0 || j >= 0 && j < i {
		t.Errorf("reason %q, want the full listen backlog named first", why)
	}
	if sum.Checks[duplicates].Fail != 0 || sum.Checks[acceptsValid].Fail != 0 {
		t.Errorf("duplicates %+v, accepts-valid %+v: the receiver answers every call", *sum.Checks[duplicates], *sum.Checks[acceptsValid])
	}
}

// The same receiver under load: the calls that time out waited in the
// kernel's handshake retries, and load's reason says so.
func TestFullListenBacklogLoad(t *testing.T) {
	ln := tinyBacklog(t)
	l := &oneAtATime{Listener: ln, free: make(chan struct{}, 1)}
	l.free <- struct{}{}
	srv := &http.Server{Handler: newReceiver(t, defects{ignoreSig: true})}
	srv.SetKeepAlivesEnabled(false)
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	cfg := testConfig(t, "http://"+ln.Addr().String())
	client, err := envClient(attempt.ClientOptions{Timeout: 2500 * time.Millisecond, Concurrency: 32})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Client, cfg.Signer = client, nil
	cfg.Checks = []string{acceptsValid, Load}
	cfg.LoadCount, cfg.LoadConcurrency = 96, 32
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load := ofCheck(results, Load)
	if len(load) != 1 || sum.Checks[Load].Fail != 1 || !strings.Contains(load[0].Reason, "timeout") {
		t.Skipf("load %+v: no call timed out in a full backlog here", *sum.Checks[Load])
	}
	t.Log(load[0].Reason)
	if !strings.Contains(load[0].Reason, "listen backlog") {
		t.Errorf("reason %q, want the full listen backlog named", load[0].Reason)
	}
}
