//go:build linux

// Command looproto is an experiment, not part of whsim (issue #35, branch
// send38): how much CPU a Go client spends per delivery when it sends as
// wrk does, a few event loops each owning several connections through
// epoll, instead of a goroutine per connection. It posts the same prebuilt
// request bytes to the null receiver (bench/send/receiver) over -c
// connections from -t loops until -n answers came, reads each answer's
// status line and Content-Length and nothing else, and prints the count.
// Measure its CPU with /usr/bin/time beside wrk's (bench/send/looproto.sh).
//
// -peek looks at each kept-alive connection (MSG_PEEK) before writing a
// call on it, as whsim's fast path does for #28; -wait raw blocks in
// epoll_wait without telling the scheduler (the loop keeps its P, as a
// wrk thread keeps its core), -wait go through unix.EpollWait (the
// scheduler hands the P off while the loop waits).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/cli/sendout"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"golang.org/x/sys/unix"
)

func main() {
	target := flag.String("url", "", "receiver URL (http://127.0.0.1:port/path)")
	conns := flag.Int("c", 32, "connections")
	loops := flag.Int("t", 2, "event loops")
	count := flag.Int64("n", 50000, "answers to wait for")
	bodyFile := flag.String("body", "", "request body file")
	peek := flag.Bool("peek", false, "MSG_PEEK each kept-alive connection before writing on it")
	check := flag.String("check", "", "epoll: a kept-alive connection's idle check is the loop's next epoll_wait")
	wait := flag.String("wait", "raw", "raw, go or hybrid: how a loop waits in epoll_wait")
	lock := flag.Bool("lock", false, "LockOSThread each loop")
	ledger := flag.String("account", "", "account each delivery as whsim does (a Result, its stats with the HDR histogram, its --output json line) and write the lines to this file")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Scheme != "http" {
		fmt.Fprintln(os.Stderr, "looproto: -url must be http://host:port/path")
		os.Exit(2)
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "looproto:", err)
		os.Exit(2)
	}
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", u.RequestURI(), u.Host, len(body))
	req = append(req, body...)
	addr, err := sockaddr(u.Host)
	if err != nil {
		fmt.Fprintln(os.Stderr, "looproto:", err)
		os.Exit(2)
	}
	var console *sendout.Console
	if *ledger != "" {
		f, err := os.Create(*ledger)
		if err != nil {
			fmt.Fprintln(os.Stderr, "looproto:", err)
			os.Exit(2)
		}
		defer f.Close()
		if console, err = sendout.NewConsole(sendout.ConsoleOptions{Format: term.JSON, Out: f, Err: os.Stderr}); err != nil {
			fmt.Fprintln(os.Stderr, "looproto:", err)
			os.Exit(2)
		}
	}
	var left atomic.Int64
	left.Store(*count)
	var done atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := range *loops {
		n := *conns / *loops
		if i < *conns%*loops {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if *lock {
				runtime.LockOSThread()
			}
			l := &loop{console: console, url: *target, req: req, addr: addr, peek: *peek, raw: *wait == "raw", hybrid: *wait == "hybrid", epollCheck: *check == "epoll", left: &left}
			got, err := l.run(n)
			done.Add(got)
			if err != nil {
				fmt.Fprintln(os.Stderr, "looproto:", err)
				os.Exit(1)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%d answers %.0f req/s\n", done.Load(), float64(done.Load())/time.Since(start).Seconds())
}

func sockaddr(hostport string) (*unix.SockaddrInet4, error) {
	host, port, ok := bytes.Cut([]byte(hostport), []byte(":"))
	if !ok {
		return nil, fmt.Errorf("no port in %q", hostport)
	}
	p, err := strconv.Atoi(string(port))
	if err != nil {
		return nil, err
	}
	var ip [4]byte
	for i, part := range bytes.Split(host, []byte(".")) {
		v, err := strconv.Atoi(string(part))
		if err != nil || i > 3 {
			return nil, fmt.Errorf("host %q: IPv4 only", host)
		}
		ip[i] = byte(v)
	}
	return &unix.SockaddrInet4{Port: p, Addr: ip}, nil
}

type conn struct {
	fd  int
	buf []byte
	n   int // bytes of the current answer in buf
	// idle: its answer was read, its next call waits for the check.
	idle bool
	sent time.Time // when its call was written (-account)
	res  attempt.Result
	req  attempt.Request
	att  [1]attempt.Attempt
}

type loop struct {
	// console and stats, when console is set, account for each delivery
	// as a whsim run does.
	console *sendout.Console
	stats   *load.Stats
	url     string
	shown   string // url as the ledger shows it
	seq     int
	req     []byte
	addr    *unix.SockaddrInet4
	peek    bool
	raw     bool
	left    *atomic.Int64
	ep      int
	// hybrid: epoll_wait without waiting first, and when nothing is ready
	// the loop parks on Go's poller, which watches the epoll fd itself.
	hybrid bool
	epRC   syscall.RawConn
	// epollCheck: the idle check is the loop's next epoll_wait (-check epoll).
	epollCheck bool
}

// run owns n connections until the run's answers are all counted.
func (l *loop) run(n int) (int64, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err == nil {
		err = unix.SetNonblock(ep, true)
	}
	if err != nil {
		return 0, err
	}
	l.ep = ep
	l.stats = load.NewStats()
	l.shown = termsafe.URLString(l.url)
	if l.hybrid {
		f := os.NewFile(uintptr(ep), "epoll") // ep is non-blocking: the poller takes it
		rc, err := f.SyscallConn()
		if err != nil {
			return 0, err
		}
		l.epRC = rc
	}
	conns := make([]*conn, n)
	for i := range conns {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return 0, err
		}
		if err := unix.Connect(fd, l.addr); err != nil {
			return 0, err
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		unix.SetNonblock(fd, true)
		conns[i] = &conn{fd: fd, buf: make([]byte, 4096)}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(i)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return 0, err
		}
		if l.left.Add(-1) >= 0 {
			if err := l.write(conns[i]); err != nil {
				return 0, err
			}
		}
	}
	var got int64
	events := make([]unix.EpollEvent, n)
	inflight := n
	// With -check epoll, a connection whose answer was read waits for the
	// next epoll_wait (which does not block while any wait) before its
	// next call is written: one not reported there holds no bytes and was
	// not closed when it returned, the look -peek takes with a system call
	// per connection. (events holds every connection of the loop, so that
	// none ready can go unreported.)
	var pending, checked []*conn
	for inflight > 0 {
		var k int
		var err error
		if l.epollCheck && len(pending) > 0 {
			k, err = l.epollPoll(events)
			checked, pending = append(checked[:0], pending...), pending[:0]
		} else {
			k, err = l.epollWait(events)
		}
		if err != nil {
			return got, err
		}
		// The checked connections are written first, as close to their
		// check as can be: one reported holds bytes or was closed (the
		// null receiver does neither: here that ends the run).
		for _, ev := range events[:k] {
			if c := conns[ev.Fd]; c.idle {
				return got, fmt.Errorf("kept-alive connection not idle (events %#x)", ev.Events)
			}
		}
		for _, c := range checked {
			c.idle = false
			if err := l.write(c); err != nil {
				return got, err
			}
		}
		checked = checked[:0]
		for _, ev := range events[:k] {
			c := conns[ev.Fd]
			m, e := sysRead(c.fd, c.buf[c.n:])
			if e == syscall.EAGAIN {
				continue
			}
			if e != 0 || m == 0 {
				return got, fmt.Errorf("read: %v (%d)", e, m)
			}
			c.n += m
			size, ok := answerSize(c.buf[:c.n])
			if !ok {
				return got, fmt.Errorf("bad answer %q", c.buf[:c.n])
			}
			if size == 0 || c.n < size {
				continue
			}
			if c.n > size {
				return got, fmt.Errorf("bytes after the answer")
			}
			got++
			if l.console != nil {
				l.account(c, size)
			}
			c.n = 0
			if ev.Events&unix.EPOLLRDHUP != 0 {
				return got, fmt.Errorf("receiver closed")
			}
			if l.left.Add(-1) < 0 {
				inflight--
				continue
			}
			if l.epollCheck {
				c.idle = true
				pending = append(pending, c)
				continue
			}
			if l.peek {
				var b [1]byte
				if _, e := sysPeek(c.fd, b[:]); e != syscall.EAGAIN {
					return got, fmt.Errorf("connection not idle")
				}
			}
			if err := l.write(c); err != nil {
				return got, err
			}
		}
	}
	return got, nil
}

// epollPoll is epoll_wait that does not wait.
func (l *loop) epollPoll(events []unix.EpollEvent) (int, error) {
	for {
		r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(r), nil
	}
}

func (l *loop) epollWait(events []unix.EpollEvent) (int, error) {
	if l.hybrid {
		var n int
		var errno syscall.Errno
		err := l.epRC.Read(func(fd uintptr) bool {
			for {
				r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, fd, uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
				if e == syscall.EINTR {
					continue
				}
				n, errno = int(r), e
				return n > 0 || e != 0
			}
		})
		if err == nil && errno != 0 {
			err = errno
		}
		return n, err
	}
	for {
		var n int
		var err error
		if l.raw {
			r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), ^uintptr(0), 0, 0)
			n = int(r)
			if e != 0 {
				err = e
			}
		} else {
			n, err = unix.EpollWait(l.ep, events, -1)
		}
		if err == syscall.EINTR {
			continue
		}
		return n, err
	}
}

// answerSize is the length of the answer b starts with, framed by a
// Content-Length (the null receiver's), 0 while its head is incomplete,
// and false in ok for a malformed one.
func answerSize(b []byte) (size int, ok bool) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return 0, true
	}
	if len(b) < 13 || string(b[:9]) != "HTTP/1.1 " {
		return 0, false
	}
	head := b[:end]
	i := bytes.Index(head, []byte("Content-Length: "))
	if i < 0 {
		return 0, false
	}
	v := head[i+16:]
	if j := bytes.IndexByte(v, '\r'); j >= 0 {
		v = v[:j]
	}
	length, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, false
	}
	return end + 4 + length, true
}

// account makes the delivery's Result (in c's, reused, as whsim cuts
// them from slabs) and tells the stats and the ledger of it.
func (l *loop) account(c *conn, size int) {
	lat := time.Since(c.sent)
	status, _ := strconv.Atoi(string(c.buf[9:12]))
	l.seq++
	c.req = attempt.Request{Event: "CREATE_RECEIVABLE_DOC", RequestID: "3efcba8f-0931-44f0-8ca9-adf81433520a", Seq: l.seq, Document: true}
	c.att[0] = attempt.Attempt{Status: status, Latency: lat}
	c.res = attempt.Result{Request: &c.req, URL: l.url, Shown: l.shown, OK: status/100 == 2, Attempts: c.att[:]}
	l.stats.Add(&c.res)
	l.console.Report(&c.res)
}

func (l *loop) write(c *conn) error {
	if l.console != nil {
		c.sent = time.Now()
	}
	return write(c.fd, l.req)
}

func write(fd int, p []byte) error {
	for len(p) > 0 {
		n, e := sysWrite(fd, p)
		if e != 0 {
			return fmt.Errorf("write: %v", e)
		}
		p = p[n:]
	}
	return nil
}

func sysRead(fd int, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(n), e
}

func sysWrite(fd int, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(n), e
}

func sysPeek(fd int, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)),
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return int(n), e
}
