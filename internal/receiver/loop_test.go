package receiver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Two listens forwarding to each other stop after MaxForwardHops: the
// sender gets 508, every hop is recorded, and the loop ends.
func TestForwardLoopStops(t *testing.T) {
	t.Parallel()
	var a, b *Receiver
	srvA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.ServeHTTP(w, r) }))
	defer srvA.Close()
	srvB := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { b.ServeHTTP(w, r) }))
	defer srvB.Close()
	ua, _ := url.Parse(srvA.URL)
	ub, _ := url.Parse(srvB.URL)
	memA, memB := &memRecorder{}, &memRecorder{}
	a = New(Config{ForwardTo: ub, Capture: memA, Client: newClient(4, 5*time.Second, nil)})
	b = New(Config{ForwardTo: ua, Capture: memB, Client: newClient(4, 5*time.Second, nil)})
	defer a.Close()
	defer b.Close()

	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(srvA.URL+"/?businessType="+ev, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusLoopDetected {
		t.Errorf("status %d, want 508", resp.StatusCode)
	}
	memA.mu.Lock()
	memB.mu.Lock()
	defer memA.mu.Unlock()
	defer memB.mu.Unlock()
	if n := len(memA.recs) + len(memB.recs); n != maxForwardHops+1 {
		t.Fatalf("%d calls recorded, want %d", n, maxForwardHops+1)
	}
	last := memB.recs[0] // B is answered first: it saw the call last
	if last.Response.Status != http.StatusLoopDetected || last.Forward != nil ||
		last.Headers.Get(hopHeader) != strconv.Itoa(maxForwardHops) {
		t.Errorf("last hop recorded as %+v", last)
	}
}

// A call forwarded on carries its hop count up by one.
func TestForwardCountsHops(t *testing.T) {
	t.Parallel()
	var hops []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops = append(hops, r.Header.Get(hopHeader))
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	srv, _, _ := start(t, Config{ForwardTo: u})
	for _, in := range []string{"", "1", "x"} {
		req, _ := http.NewRequest("POST", srv.URL+"/?businessType="+ev, strings.NewReader("{}"))
		if in != "" {
			req.Header.Set(hopHeader, in)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if strings.Join(hops, ",") != "1,2,1" {
		t.Errorf("hop headers %v, want 1,2,1", hops)
	}
}

func TestServesRefusesItself(t *testing.T) {
	t.Parallel()
	rcv := New(Config{})
	defer rcv.Close()
	tests := []struct {
		bind    string
		targets map[string]bool // host (the port is added) -> is listen itself
	}{
		{"127.0.0.1:0", map[string]bool{"127.0.0.1": true, "localhost": true, "0.0.0.0": true, "LOCALHOST": true, "127.0.0.2": false, "192.0.2.1": false}},
		{"[::1]:0", map[string]bool{"[::1]": true, "localhost": true, "[::]": true, "127.0.0.1": false}},
		{":0", map[string]bool{"127.0.0.1": true, "localhost": true, "[::1]": true, "0.0.0.0": true, "192.0.2.1": false}},
	}
	for _, tt := range tests {
		s, err := Listen(tt.bind, rcv, DefaultLimits)
		if err != nil {
			if strings.Contains(tt.bind, "::") {
				continue // no IPv6 here
			}
			t.Fatal(err)
		}
		port := strconv.Itoa(s.Addr().(*net.TCPAddr).Port)
		for host, want := range tt.targets {
			for _, scheme := range []string{"http", "https"} {
				u, _ := url.Parse(scheme + "://" + host + ":" + port + "/hook")
				if got := s.Serves(context.Background(), u); got != want {
					t.Errorf("bound %s: Serves(%s) = %v, want %v", s.Addr(), u, got, want)
				}
			}
		}
		other, _ := url.Parse("http://127.0.0.1:1/")
		if s.Serves(context.Background(), other) {
			t.Errorf("bound %s: another port counted as itself", s.Addr())
		}
		s.ln.Close()
	}
	noPort, _ := url.Parse("http://localhost/")
	s, _ := Listen("127.0.0.1:0", rcv, DefaultLimits)
	defer s.ln.Close()
	if s.Serves(context.Background(), noPort) {
		t.Error("port 80 counted as itself")
	}
}
