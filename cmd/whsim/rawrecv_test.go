package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// rawRecv is a receiver that answers every call with the bytes of a file,
// as they are, then closes the connection: an answer net/http's server
// would never write (two Content-Lengths, a status that is no status).
// With a logfile it holds the connection open instead, as a receiver
// whose answer's body is still coming, and logs a line once each answer
// went out (an event for interrupt -after).
//
//	exec rawrecv <answerfile> <readyfile> [<logfile>] &
//
// It writes its URL to readyfile.
func rawRecv() int {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: rawrecv <answerfile> <readyfile> [<logfile>]")
		return 2
	}
	answer, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawrecv:", err)
		return 1
	}
	var (
		mu   sync.Mutex
		logf *os.File
	)
	if len(os.Args) == 4 {
		if logf, err = os.OpenFile(os.Args[3], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "rawrecv:", err)
			return 1
		}
		defer logf.Close()
	}
	stopped := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = bw.Write(answer)
		_ = bw.Flush()
		if logf == nil {
			return
		}
		mu.Lock()
		fmt.Fprintf(logf, "%s %s\n", r.Method, r.URL.RequestURI())
		mu.Unlock()
		<-stopped
	})
	return serveUntilSignal("rawrecv", os.Args[2], "/hook", h, func() { close(stopped) })
}
