package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
)

// closeRecv is a receiver that reads each call whole, answers it 200 "ok"
// without Connection: close, and closes the connection: a server that
// keeps no connection alive and does not say so, which a sender that
// keeps its connections races on each call.
//
//	exec closerecv <readyfile> &
//
// It writes its URL to readyfile, and on SIGINT or SIGTERM the number of
// calls it read whole to stdout: "read 5 calls".
func closeRecv() int {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: closerecv <readyfile>")
		return 2
	}
	var read atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		read.Add(1)
		// Taken over: net/http's server would say Connection: close
		// of a connection it closes.
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = bw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		_ = bw.Flush()
	})
	code := serveUntilSignal("closerecv", os.Args[1], "/hook", h, nil)
	fmt.Printf("read %d calls\n", read.Load())
	return code
}
