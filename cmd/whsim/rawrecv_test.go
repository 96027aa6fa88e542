package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

// rawRecv is a receiver that answers every call with the bytes of a file,
// as they are, then closes the connection: an answer net/http's server
// would never write (two Content-Lengths, a status that is no status).
//
//	exec rawrecv <answerfile> <readyfile> &
//
// It writes its URL to readyfile.
func rawRecv() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rawrecv <answerfile> <readyfile>")
		return 2
	}
	answer, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawrecv:", err)
		return 1
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = bw.Write(answer)
		_ = bw.Flush()
	})
	return serveUntilSignal("rawrecv", os.Args[2], "/hook", h, nil)
}
