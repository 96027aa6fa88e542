package whsimtest

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/testnet"
)

// CheckURL grades a receiver that sends bytes no call asked for after its
// answers on a kept-alive connection as whsim check does: the case whose
// answer they followed fails, saying so (an ERP that reuses the
// connection reads them as its next call's answer); the other cases
// whose answers came on that connection after those bytes are skipped (not
// judged: an answer there may be another call's). Here each connection's
// second call is answered with the first one's second answer, then its
// own: the second case on each fails; the first, whose answer was its own
// (the next call was answered after it before any such bytes), passes.
// Before, every case was skipped and the test passed. Over HTTPS
// (HTTP/1.1, no h2 offered) the same; before, nothing was noted there and
// the test failed only on the 500s read as other calls' answers.
func TestCheckURLAnswersOnAConnectionHoldingUnaskedBytesAreNotJudged(t *testing.T) {
	t.Parallel()
	for _, overTLS := range []bool{false, true} {
		t.Run(fmt.Sprintf("TLS %v", overTLS), func(t *testing.T) {
			t.Parallel()
			checkURLUnasked(t, overTLS)
		})
	}
}

func checkURLUnasked(t *testing.T, overTLS bool) {
	scheme, opts, conf := "http", []Option{WithChecks("accepts-valid")}, (*tls.Config)(nil)
	if overTLS {
		ts := httptest.NewUnstartedServer(http.NotFoundHandler())
		ts.StartTLS()
		ts.Close()
		roots := x509.NewCertPool()
		roots.AddCert(ts.Certificate())
		conf = &tls.Config{Certificates: ts.TLS.Certificates, NextProtos: []string{"http/1.1"}}
		scheme, opts = "https", append(opts, WithRootCAs(roots))
	}
	const (
		ok200  = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
		err500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
	)
	ln := testnet.Serve(t, func(c net.Conn) {
		if conf != nil {
			sc := tls.Server(c, conf)
			defer sc.Close()
			c = sc
		}
		br := bufio.NewReader(c)
		for k := 0; ; k++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, req.Body); err != nil {
				return
			}
			answer := ok200
			if k > 0 {
				answer = err500 + ok200
			}
			if _, err := io.WriteString(c, answer); err != nil {
				return
			}
		}
	})
	r := record("TestTwice", func(t tb) { checkURL(t, scheme+"://"+ln.Addr().String()+"/hooks", opts) })
	var failed, skipped, passed int
	r.walk(func(c *recorder) {
		if c == r || len(c.children) > 0 {
			return // a case is a leaf
		}
		switch {
		case len(c.errs) > 0:
			failed++
			if !strings.Contains(strings.Join(c.errs, "\n"), `after the answer read as its own ("500 Internal Server Error") the receiver sent more bytes on the kept-alive connection that no call asked for`) {
				t.Errorf("%s failed with %q, want the bytes after its answer", c.name, c.errs)
			}
		case c.skipped:
			skipped++
			if !strings.Contains(c.skipMsg, "no call asked for") {
				t.Errorf("%s: skipped %q, want: the connection held bytes no call asked for", c.name, c.skipMsg)
			}
		default:
			passed++
		}
	})
	// 19 cases, two a connection: the first on each was answered once, and
	// the next call after it, before anything no call asked for (its
	// answer its own: it passes); the second read the first's second
	// answer as its own, its own left after it (it fails); the last is
	// alone, answered once.
	if failed != 9 || skipped != 0 || passed != 10 {
		t.Errorf("%d failed, %d skipped, %d passed; want 9, 0, 10\n%s", failed, skipped, passed, r.said())
	}
	if !r.didFail() {
		t.Errorf("the test passed: a receiver that answers calls twice is broken\n%s", r.said())
	}
}
