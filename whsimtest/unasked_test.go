package whsimtest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// CheckURL grades a receiver that answers each call twice on a kept-alive
// connection as whsim check does: no case passes or fails on an answer
// that may be another call's; each is skipped (not judged), saying what
// was seen.
func TestCheckURLAnswersOnAConnectionHoldingUnaskedBytesAreNotJudged(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					_, err = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n")
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	r := record("TestTwice", func(t tb) { checkURL(t, "http://"+ln.Addr().String()+"/hooks", []Option{WithChecks("accepts-valid")}) })
	if f := r.failures(); len(f) != 0 {
		t.Errorf("failed %q, want none: no answer can be matched to its call\n%s", f, r.said())
	}
	n := 0
	r.walk(func(c *recorder) {
		if c == r || len(c.children) > 0 {
			return // a case is a leaf
		}
		n++
		if !c.skipped || !strings.Contains(c.skipMsg, "no call asked for") {
			t.Errorf("%s: skipped %v %q, want skipped: the connection held bytes no call asked for", c.name, c.skipped, c.skipMsg)
		}
	})
	if n == 0 {
		t.Fatalf("no case ran:\n%s", r.said())
	}
}
