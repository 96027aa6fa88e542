package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// serveUntilSignal serves h for the test receiver called name (hookrecv,
// storerecv, docrecv, holdrecv) on a free port of 127.0.0.1, writes its URL
// with urlPath ("", "/", "/hook") to readyFile and serves until SIGINT or
// SIGTERM; stopping, when not nil, runs before the server closes (a handler
// that holds calls lets them go). It returns the receiver's exit code.
// With RECV_TLS_CA set it serves https, and writes the CA that signs its
// certificate to the file RECV_TLS_CA names. With RECV_USERINFO
// (user:password) the URL carries it.
//
// The URL is written to a temporary file and renamed, so a script waiting
// for readyFile never reads half of it. The signals are caught before the
// URL is written: a script that signals as soon as it reads the file stops
// the receiver, never kills it.
// connKey is the context key of the connection a call came on, for a
// handler of serveUntilSignal's to key on: a client's address is no
// connection's name, since a port the client used is used again (on
// loopback even from TIME_WAIT), and a new connection read as an old one
// had droprecv hold a first call, which the sender rightly took for no
// kept-alive one (1 run in 6 beside three CPU hogs).
type connKey struct{}

func serveUntilSignal(name, readyFile, urlPath string, h http.Handler, stopping func()) int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }}
	scheme := "http"
	if ca := os.Getenv("RECV_TLS_CA"); ca != "" {
		// Over TLS, with a certificate of httptest's whose CA goes to
		// the file RECV_TLS_CA names, for --cacert.
		cert, pemCA := localhostCert()
		if err := os.WriteFile(ca, pemCA, 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 1
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
		scheme = "https"
	}
	go srv.Serve(ln)
	tmp := readyFile + ".tmp"
	userinfo := os.Getenv("RECV_USERINFO")
	if userinfo != "" {
		userinfo += "@"
	}
	err = os.WriteFile(tmp, []byte(scheme+"://"+userinfo+ln.Addr().String()+urlPath+"\n"), 0o644)
	if err == nil {
		err = os.Rename(tmp, readyFile)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	<-stop
	if stopping != nil {
		stopping()
	}
	srv.Close()
	return 0
}

// localhostCert is a certificate for 127.0.0.1, httptest's, and the PEM of
// the CA that signed it, for a test receiver serving https and the
// --cacert that trusts it.
func localhostCert() (tls.Certificate, []byte) {
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	defer ts.Close()
	return ts.TLS.Certificates[0], pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
}

// unlinkRecv is a receiver that, as each call arrives, removes a file
// (listen's capture file) and then answers 200: the capture fails while
// listen holds a call it has forwarded.
//
//	exec unlinkrecv <readyfile> <file> &
func unlinkRecv() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: unlinkrecv <readyfile> <file>")
		return 2
	}
	victim := os.Args[2]
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if err := os.Remove(victim); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(os.Stderr, "unlinkrecv:", err)
		}
		_, _ = io.WriteString(w, "stored\n")
	})
	return serveUntilSignal("unlinkrecv", os.Args[1], "/hook", h, nil)
}

// dupRecv is a receiver that keeps each call's requestId: it answers the
// first call of a requestId 200 at once and refuses its repeats 409, the
// second (a --fault duplicate's copy, say) only once a file (the gate)
// exists, the later ones at once. It logs each call as it arrives, a
// line each.
//
//	exec duprecv <readyfile> <logfile> <gatefile> &
func dupRecv() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: duprecv <readyfile> <logfile> <gatefile>")
		return 2
	}
	logName, gate := os.Args[2], os.Args[3]
	var mu sync.Mutex
	seen := map[string]int{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct {
			RequestID string `json:"requestId"`
		}
		_ = json.NewDecoder(r.Body).Decode(&env)
		mu.Lock()
		seen[env.RequestID]++
		n := seen[env.RequestID]
		f, err := os.OpenFile(logName, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %d\n", env.RequestID, n)
			f.Close()
		}
		mu.Unlock()
		for n == 2 {
			if _, err := os.Stat(gate); err == nil || r.Context().Err() != nil {
				break
			}
			time.Sleep(10 * time.Millisecond) // a test receiver's look at the gate, not a test's wait
		}
		if n > 1 {
			w.WriteHeader(http.StatusConflict)
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	return serveUntilSignal("duprecv", os.Args[1], "/hook", h, nil)
}

// gateRecv is a receiver that answers its first call 200 at once and
// holds each later one until a file (the gate) exists, then answers it
// 200: a script lets the held calls go by creating the gate. It logs
// each call as it arrives, a line each.
//
//	exec gaterecv <readyfile> <logfile> <gatefile> &
func gateRecv() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gaterecv <readyfile> <logfile> <gatefile>")
		return 2
	}
	logName, gate := os.Args[2], os.Args[3]
	var mu sync.Mutex
	calls := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		first := calls == 1
		f, err := os.OpenFile(logName, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s\n", r.Method, r.URL.RequestURI())
			f.Close()
		}
		mu.Unlock()
		for !first {
			if _, err := os.Stat(gate); err == nil || r.Context().Err() != nil {
				break
			}
			time.Sleep(10 * time.Millisecond) // a test receiver's look at the gate, not a test's wait
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	return serveUntilSignal("gaterecv", os.Args[1], "/hook", h, nil)
}
