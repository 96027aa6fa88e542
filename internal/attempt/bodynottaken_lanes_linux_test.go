//go:build linux

package attempt

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// readLaterServer accepts one connection, answers its first call 200,
// reads nothing more of it until read is closed, then all of it to its
// end, and sends how many bytes came after the first call on got: what
// the sender's writes of its second call put on the connection, those
// its socket still held when it closed included.
func readLaterServer(t *testing.T, read <-chan struct{}) (*url.URL, <-chan int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil {
			got <- -1
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); err != nil {
			got <- -1
			return
		}
		<-read
		n, _ := io.Copy(io.Discard, br)
		got <- int(n)
	}()
	return &url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/hook"}, got
}

// "the body was never taken: N bytes of the call written" says how much
// of the call went out, on a run's worker and on the event loop's lanes
// alike: the receiver, reading at last, gets N bytes. On a lane, whose
// loop writes a call on a kept-alive connection until the socket takes
// no more and hands the rest to a goroutine, N was of the rest only,
// leaving out what the loop wrote. The second call goes on the
// connection the first was answered on. Found by ck47.
func TestBodyNeverTakenCountsWhatWentOut(t *testing.T) {
	small := Template{Event: "A", Query: "businessType=A", Body: []byte(`{}`)}
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	for _, lanes := range []bool{false, true} {
		name := "a run's worker"
		if lanes {
			name = "a lane of the event loops"
		}
		t.Run(name, func(t *testing.T) {
			read := make(chan struct{})
			u, received := readLaterServer(t, read)
			c, err := NewClient(ClientOptions{Timeout: 3 * time.Second, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: u}
			var r *Result
			if lanes {
				if !asLanes(context.Background(), d, [][]Template{{small}, {*tmpl}}, 2, func(res *Result) {
					r = &Result{OK: res.OK, Attempts: append([]Attempt(nil), res.Attempts...)}
				}) {
					t.Skip("no event loops here")
				}
			} else {
				ids := reqid.NewIDs(1)
				var bb *Buf
				defer func() { bb.Release() }()
				for i, t := range []*Template{&small, tmpl} {
					req := &Request{Event: t.Event, Query: t.Query, Seq: i + 1}
					req.FromTemplate(t, ids.For(t.Event), 0)
					r = d.DeliverWith(context.Background(), req, &bb)
				}
			}
			close(read)
			a := r.Last()
			got := <-received
			short := ShortError(a)
			want := KindTimeout + ": " + BodyNotTakenWords + ": the write of the call did not complete within the time limit ("
			tail := " bytes of the call written, of a " + strconv.Itoa(len(tmpl.Body)) + "-byte body)"
			if !strings.HasPrefix(short, want) || !strings.HasSuffix(short, tail) {
				t.Fatalf("short error %q, want it to start %q and end %q", short, want, tail)
			}
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(short, want), tail))
			if err != nil || n != got {
				t.Errorf("%q: says %d bytes written; the receiver got %d", short, n, got)
			}
		})
	}
}
