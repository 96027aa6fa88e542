package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// connectProxy is an http:// proxy on 127.0.0.1 that opens CONNECT
// tunnels, to 127.0.0.1 whatever host the CONNECT names: a receiver on
// 127.0.0.1 is reached through it by the name example.com (which the
// test receivers' certificate holds), since the environment's proxy
// (HTTPS_PROXY) is never used for a loopback address.
//
//	exec connectproxy <receiverurlfile> <proxyfile> <urlfile> &
//
// It reads the receiver's URL, writes its own URL to proxyfile and the
// receiver's, with the host example.com, to urlfile, and serves until
// SIGINT or SIGTERM.
func connectProxy() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: connectproxy <receiverurlfile> <proxyfile> <urlfile>")
		return 2
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "connectproxy:", err)
		return 1
	}
	recv, err := url.Parse(strings.TrimSpace(string(b)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "connectproxy:", err)
		return 1
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "connectproxy:", err)
		return 1
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go tunnel(c)
		}
	}()
	recv.Host = net.JoinHostPort("example.com", recv.Port())
	for _, f := range [][2]string{{os.Args[2], "http://" + ln.Addr().String()}, {os.Args[3], recv.String()}} {
		// err is the function's: an if-scoped one would leave the
		// check below reading a nil.
		err = os.WriteFile(f[0]+".tmp", []byte(f[1]+"\n"), 0o644)
		if err == nil {
			err = os.Rename(f[0]+".tmp", f[0])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "connectproxy:", err)
			return 1
		}
	}
	<-stop
	return 0
}

// tunnel serves one client of connectProxy: a CONNECT, then the bytes
// both ways until either side ends.
func tunnel(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		_, _ = io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	_, port, _ := net.SplitHostPort(req.Host)
	up, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer up.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); _ = up.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); _ = c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	<-done
	<-done
}
