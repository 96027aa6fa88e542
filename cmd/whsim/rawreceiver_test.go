package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
)

// rawReceiver starts a receiver on raw TCP, on a loopback port, that
// answers the calls it reads, in the order it reads them, with the
// answers given (Go-quoted bytes, without their quotes: \r\n is a line's
// end), the last one to every later call; it closes the connection after
// an answer that is no whole HTTP answer or says Connection: close, and
// keeps it open after any other. The variable is set to its URL (path /hook). It stops with the
// script:
//
//	rawreceiver URL 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok' 'HTTP/1.1 200 OK\r\nContent-Le'
func rawReceiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: rawreceiver <variable> <answer>...")
	}
	var answers [][]byte
	for _, a := range args[1:] {
		s, err := strconv.Unquote(`"` + a + `"`)
		if err != nil {
			ts.Fatalf("rawreceiver: answer %q: %v", a, err)
		}
		answers = append(answers, []byte(s))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	var calls atomic.Int64
	var wg sync.WaitGroup
	conns := make(map[net.Conn]bool)
	var mu sync.Mutex
	serve := func(c net.Conn) {
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
			answer := answers[min(int(calls.Add(1))-1, len(answers)-1)]
			if _, err := c.Write(answer); err != nil || !keepsOpen(answer) {
				return
			}
		}
	}
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Go(func() { serve(c) })
		}
	})
	ts.Defer(func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	ts.Setenv(args[0], "http://"+ln.Addr().String()+"/hook")
}

// keepsOpen says b is one whole HTTP answer, its body read to its end,
// that keeps its connection.
func keepsOpen(b []byte) bool {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), nil)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err == nil && resp.ContentLength >= 0 && !resp.Close
}
