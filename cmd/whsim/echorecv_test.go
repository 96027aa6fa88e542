package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
)

// echoRecv is a receiver that echoes each call's credentials back, as a
// debugging endpoint or an error page that quotes the request does: in
// its status line's reason, in a header of its own, and at the start of
// its body (the headers, the URL, then the body):
//
//	exec echorecv <status> <readyfile> &
//
// It answers every call with status and writes its URL to readyfile
// (with RECV_USERINFO in it, serveUntilSignal). whsim must show none
// of what it echoes of the run's credentials. SIGINT or SIGTERM stops it.
func echoRecv() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: echorecv <status> <readyfile>")
		return 2
	}
	status, err := strconv.Atoi(os.Args[1])
	if err != nil || status < 200 || status > 599 {
		fmt.Fprintln(os.Stderr, "echorecv: status: want 200 to 599")
		return 2
	}
	ready := os.Args[2]
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		var echo strings.Builder
		// The credentials first, so that the start of the body a failure
		// line shows holds them, then the rest of the call.
		first := []string{"Authorization", "X-Api-Key", "Webhook-Signature"}
		for _, k := range first {
			fmt.Fprintf(&echo, "%s: %s; ", k, r.Header.Get(k))
		}
		fmt.Fprintf(&echo, "url: %s; ", r.URL.RequestURI())
		for _, k := range slices.Sorted(maps.Keys(r.Header)) {
			if !slices.Contains(first, k) {
				fmt.Fprintf(&echo, "%s: %s; ", k, strings.Join(r.Header[k], ", "))
			}
		}
		fmt.Fprintf(&echo, "body: %s", body)
		// The reason a status line gives is the receiver's own text: a
		// net/http handler cannot set it, so the answer is written whole.
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		writeEcho(bw, status, auth, r.URL.RequestURI(), echo.String())
	})
	return serveUntilSignal("echorecv", ready, "/hook", h, nil)
}

// writeEcho writes an answer whose reason, X-Echo-* headers and body
// quote the call.
func writeEcho(bw *bufio.ReadWriter, status int, auth, uri, body string) {
	fmt.Fprintf(bw, "HTTP/1.1 %d Refused %s\r\n", status, auth)
	fmt.Fprintf(bw, "Content-Type: text/plain\r\nX-Echoed: %s\r\nX-Echo-Url: %s\r\n", auth, uri)
	fmt.Fprintf(bw, "Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	bw.Flush()
}
