package check

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// A receiver that sends bytes after its answer in the same write (a 4xx
// followed by stray bytes, or a call answered twice at once) gets the same
// verdicts and reasons on net/http's transport as on the fast path: each
// case fails on the answer read as its own, the bytes after it never read
// as the next call's answer, and the receiver reads as many calls as the
// run has cases (none sent twice, none lost).
func TestStrayBytesAfterAnAnswerAgreeOnBothTransports(t *testing.T) {
	t.Parallel()
	const cases = 19 // accepts-valid's
	for _, tc := range []struct{ name, answer, status string }{
		{"4xx then stray bytes", "HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\n\r\nbadGARBAGE\r\n", "400 Bad Request"},
		{"answered twice at once", ok200 + err500, "200 OK"},
	} {
		var said [2][]string
		for i, netHTTP := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/net/http %v", tc.name, netHTTP), func(t *testing.T) {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ln.Close() })
				var read atomic.Int64
				serveCalls(ln, func(_, _ int, c net.Conn) bool {
					read.Add(1)
					_, err := io.WriteString(c, tc.answer)
					return err == nil
				})
				cfg := testConfig(t, "http://"+ln.Addr().String()+"/hook")
				c, err := attempt.NewClient(attempt.ClientOptions{Timeout: callTimeout, Concurrency: 16, NetHTTP: netHTTP})
				if err != nil {
					t.Fatal(err)
				}
				cfg.Client, cfg.Signer, cfg.Checks = c, nil, []string{acceptsValid}
				sum, results, err := run(t, context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range ofCheck(results, acceptsValid) {
					said[i] = append(said[i], r.Case.Name+": "+string(r.Verdict)+" "+r.Reason)
					want := "after the answer read as its own (" + fmt.Sprintf("%q", tc.status) + ") the receiver sent more bytes on the kept-alive connection that no call asked for"
					if r.Verdict != Fail || !strings.HasPrefix(r.Reason, want) {
						t.Errorf("%s: %s %q, want a failure starting %q", r.Case.Name, r.Verdict, r.Reason, want)
					}
				}
				if tl := sum.Checks[acceptsValid]; tl.Fail != cases {
					t.Errorf("tally %+v, want %d failed", *tl, cases)
				}
				if n := read.Load(); n != cases {
					t.Errorf("the receiver read %d calls, want %d (one per case)", n, cases)
				}
			})
		}
		if strings.Join(said[0], "\n") != strings.Join(said[1], "\n") {
			t.Errorf("%s: the transports differ:\nfast path:\n%s\nnet/http:\n%s", tc.name, strings.Join(said[0], "\n"), strings.Join(said[1], "\n"))
		}
	}
}
