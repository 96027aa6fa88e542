package load

import (
	"bufio"
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"

	"github.com/whsim/whsim/internal/testnet"
)

// leanServer answers every request 200 with as little work, and as few
// allocations, as it can: a benchmark's allocations are then the client's.
func leanServer(b *testing.B) *url.URL {
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	ln := testnet.Serve(b, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			length := 0
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				if len(line) <= 2 {
					break
				}
				if k, v, ok := strings.Cut(string(line), ":"); ok && strings.EqualFold(k, "Content-Length") {
					length, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			if _, err := br.Discard(length); err != nil {
				return
			}
			if _, err := c.Write(answer); err != nil {
				return
			}
		}
	})
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	return u
}

// BenchmarkRunRaw is a closed run on the fast path; -benchmem's allocs/op
// are a delivery's (with the receiver's few).
func BenchmarkRunRaw(b *testing.B) {
	u := leanServer(b)
	c, _ := envClient(attempt.ClientOptions{Timeout: 5 * time.Second, Concurrency: 4})
	d := &attempt.Deliverer{Client: c, Target: u}
	feed := NewFeed([][][]attempt.Template{templates("A", 8)}, b.N, 0, false, 1)
	b.ReportAllocs()
	b.ResetTimer()
	st := Run(context.Background(), d, feed.Next, RunOptions{Concurrency: 4}, func(*attempt.Result) {})
	if st.Succeeded != b.N {
		b.Fatalf("%+v", st)
	}
}
