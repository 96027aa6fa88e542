package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
)

// dropRecv is a receiver that answers the first call on each connection
// and keeps the connection alive, then reads each later call whole and
// resets the connection without an answer: a receiver that took a call
// and crashed on it. With hold, it holds each later call unanswered
// instead, the connection open, until the sender ends it: a receiver
// that answers a connection's first call only.
//
//	exec droprecv <readyfile> [hold] &
//
// It writes its URL to readyfile, and on SIGINT or SIGTERM the number of
// calls it read whole to stdout: "read 5 calls" (with hold, and how many
// of them it held: "read 5 calls, held 2").
func dropRecv() int {
	hold := len(os.Args) == 3 && os.Args[2] == "hold"
	if len(os.Args) != 2 && !hold {
		fmt.Fprintln(os.Stderr, "usage: droprecv <readyfile> [hold]")
		return 2
	}
	var read, held atomic.Int64
	var answered sync.Map // a connection (connKey): its first call was answered
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		read.Add(1)
		if _, again := answered.LoadOrStore(r.Context().Value(connKey{}), true); !again {
			_, _ = io.WriteString(w, "ok")
			return
		}
		if hold {
			held.Add(1)
			<-r.Context().Done() // the sender ended the connection, or the receiver stops
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		conn.Close()
	})
	return serveUntilSignal("droprecv", os.Args[1], "/hook", h, func() {
		if hold {
			fmt.Printf("read %d calls, held %d\n", read.Load(), held.Load())
			return
		}
		fmt.Printf("read %d calls\n", read.Load())
	})
}
