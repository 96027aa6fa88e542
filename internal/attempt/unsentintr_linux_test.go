package attempt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// A receiver that answers 200 from a call's head and then neither reads
// the body nor ends the connection leaves the fast path waiting for the
// body's write after the answer came. Ctrl-C then ended that wait, and
// the call was counted succeeded on its 200, though its body never went
// whole: send printed "succeeded 1, interrupted 0". It is interrupted now.
// Ctrl-C comes once the answer was read: the client's socket, which the
// answer reached as the receiver's write returned, holds none of it.
func TestInterruptedWhileTheBodyWasUnsentIsNoSuccess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close() })
	answered := make(chan net.Addr, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		if _, err := io.WriteString(c, answeredEarly); err != nil {
			return
		}
		answered <- c.RemoteAddr()
		<-stop // the body is never read, the connection never ended
	}()
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: u}
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	req := &Request{Event: tmpl.Event, Query: tmpl.Query, Seq: 1}
	req.FromTemplate(tmpl, reqid.NewIDs(1).For(tmpl.Event), 0)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	go func() {
		client := <-answered
		for rxQueued(t, client, ln.Addr()) != 0 {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
		interrupt()
	}()
	var bb *Buf
	defer func() {
		if bb != nil {
			bb.Release()
		}
	}()
	r := d.DeliverWith(ctx, req, &bb)
	if a := r.Last(); r.OK || a.Kind != KindInterrupted {
		t.Errorf("ok %v, %s; want an interrupted delivery, its body never sent whole", r.OK, brief(a))
	}
}

// rxQueued is the bytes waiting unread in the socket from local to
// remote, as /proc/net/tcp says; -1 when it is not listed.
func rxQueued(t *testing.T, local, remote net.Addr) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Skip("no /proc/net/tcp:", err)
	}
	hexAddr := func(a net.Addr) string {
		ta := a.(*net.TCPAddr)
		ip := ta.IP.To4()
		return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], ta.Port)
	}
	l, r := hexAddr(local), hexAddr(remote)
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != l || f[2] != r {
			continue
		}
		_, rx, _ := strings.Cut(f[4], ":")
		n, err := strconv.ParseInt(rx, 16, 64)
		if err != nil {
			t.Fatalf("/proc/net/tcp: %q: %v", line, err)
		}
		return n
	}
	return -1
}
