package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// earlyRecv is a receiver that answers every call 413 (or status) from
// its head alone and closes the connection with the body unread, as nginx
// does past client_max_body_size: a body larger than the sockets' buffers
// has the sender's write of it reset, after the answer came. With hold,
// it keeps the connection alive instead, and neither reads the body nor
// closes until it stops: the sender's write never ends. With reset in
// place of a status it answers nothing: it resets the connection as the
// body goes out (a handler that dies on the call's head). With silent it
// neither answers nor reads a byte of the body, and holds the connection
// until it stops: a call larger than the sockets' buffers is never taken
// whole, its write never ends.
//
//	exec earlyrecv <readyfile> [<status> [hold] | reset | silent] &
//
// It writes its URL to readyfile.
func earlyRecv() int {
	hold := len(os.Args) == 4 && os.Args[3] == "hold"
	reset := len(os.Args) == 3 && os.Args[2] == "reset"
	silent := len(os.Args) == 3 && os.Args[2] == "silent"
	if len(os.Args) != 2 && len(os.Args) != 3 && !hold {
		fmt.Fprintln(os.Stderr, "usage: earlyrecv <readyfile> [<status> [hold] | reset | silent]")
		return 2
	}
	closing := "Connection: close\r\n"
	if hold {
		closing = ""
	}
	head := "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n" + closing + "\r\n"
	if len(os.Args) >= 3 && !reset && !silent {
		code, err := strconv.Atoi(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "earlyrecv: status:", err)
			return 2
		}
		head = fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Length: 0\r\n%s\r\n", code, http.StatusText(code), closing)
	}
	stopped := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Taken over before a byte of the body is read: net/http's
		// server would read some of it, and wait, before it closed.
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		if reset {
			// The socket's own close, with no TLS close_notify before it:
			// a reset alone.
			raw := conn
			if tc, ok := conn.(*tls.Conn); ok {
				raw = tc.NetConn()
			}
			if tc, ok := raw.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			raw.Close()
			return
		}
		defer conn.Close()
		if silent {
			<-stopped
			return
		}
		_, _ = io.WriteString(bw, head)
		_ = bw.Flush()
		if hold {
			<-stopped
		}
	})
	return serveUntilSignal("earlyrecv", os.Args[1], "/hook", h, func() { close(stopped) })
}

// bigJSON writes a JSON object of about n MiB, one long string in it: a
// body no socket's buffers take whole.
//
//	bigjson <file> <MiB>
func bigJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bigjson <file> <MiB>")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	body := `{"requestId":"big-1","pad":"` + strings.Repeat("x", n<<20) + `"}` + "\n"
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(body), 0o644))
}
