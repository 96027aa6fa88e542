package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/whsim/whsim/internal/capture"
)

// waitFile waits up to ten seconds for a file to appear, as a script waits
// for `listen --ready-file`: waitfile url.txt
// freePort sets an environment variable to a loopback port nobody listens
// on at the time: freeport PORT. A script that must name listen's port in
// another flag (the self-forward refusal) uses it rather than a fixed
// number, which a concurrent test or another program may hold: the bind
// then fails first and the script reads another error.
func freePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport <variable>")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	ts.Check(l.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}

func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile <file> [lines]")
	}
	lines := 1 // waitfile log.txt 2: until it holds two lines (a receiver's log of calls)
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			ts.Fatalf("waitfile: lines: want a count, got %q", args[1])
		}
		lines = n
	}
	deadline := time.Now().Add(60 * time.Second) // a bound on a wait for an event: generous for a busy machine
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && bytes.HasSuffix(b, []byte("\n")) && bytes.Count(b, []byte("\n")) >= lines {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not hold %d lines within 60s", args[0], lines)
}

// rawSend writes a file's bytes as they are to the host and port of the
// URL urlfile holds, and puts what comes back, until the server closes
// the connection, in stdout: a request no HTTP client would send.
// rawsend <urlfile> <file>
func rawSend(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rawsend <urlfile> <file>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	u, err := url.Parse(strings.TrimSpace(string(b)))
	ts.Check(err)
	raw, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	ts.Check(err)
	defer conn.Close()
	_, err = conn.Write(raw)
	ts.Check(err)
	conn.SetReadDeadline(time.Now().Add(60 * time.Second)) // a bound on a wait for the server's answer
	answer, err := io.ReadAll(conn)
	ts.Check(err)
	ts.Stdout().Write(answer)
}

// httpPost posts a file to the URL read from urlfile plus a suffix and
// checks the status; -chunked sends it without a Content-Length (chunked):
// post [-chunked] <status> <urlfile> <path?query> <bodyfile> [content-type]
func httpPost(ts *testscript.TestScript, neg bool, args []string) {
	chunked := len(args) > 0 && args[0] == "-chunked"
	if chunked {
		args = args[1:]
	}
	if neg || len(args) < 4 || len(args) > 5 {
		ts.Fatalf("usage: post [-chunked] <status> <urlfile> <path?query> <bodyfile> [content-type]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	base, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	body, err := os.ReadFile(ts.MkAbs(args[3]))
	ts.Check(err)
	ct := "application/json"
	if len(args) == 5 {
		ct = args[4]
	}
	u := strings.TrimSuffix(strings.TrimSpace(string(base)), "/") + args[2]
	// A redirect is the answer asked about, not followed, as a webhook
	// sender does not follow one.
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var r io.Reader = bytes.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // a length the client cannot see: sent chunked
	}
	resp, err := client.Post(u, ct, r)
	ts.Check(err)
	resp.Body.Close()
	if resp.StatusCode != want {
		ts.Fatalf("POST %s: status %d, want %d", u, resp.StatusCode, want)
	}
}

// httpGet gets a path of the server whose URL (any path or query dropped)
// urlfile holds, with the token as a Bearer header when one is given, and
// checks the status: get <status> <urlfile> <path> [token]
func httpGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: get <status> <urlfile> <path> [token]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	base, err := url.Parse(strings.TrimSpace(string(b)))
	ts.Check(err)
	base.Path, base.RawQuery = "", ""
	req, err := http.NewRequest("GET", base.String()+args[2], nil)
	ts.Check(err)
	if len(args) == 4 {
		req.Header.Set("Authorization", "Bearer "+args[3])
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	ts.Check(err)
	resp.Body.Close()
	if resp.StatusCode != want {
		ts.Fatalf("GET %s: status %d, want %d", req.URL, resp.StatusCode, want)
	}
}

// envFile sets a variable to a file's first line, so that a script can pass
// the URL listen wrote to --ready-file on: envfile URL url.txt
func envFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile <name> <file>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	line, _, _ := strings.Cut(string(b), "\n")
	ts.Setenv(args[0], strings.TrimSpace(line))
}

// captureBodies writes the request bodies of a capture file, base64, one a
// line, so that two captures' bodies compare with cmp: bodies <capture> <out>
func captureBodies(ts *testscript.TestScript, neg bool, args []string) {
	// -raw writes each body as it is, a line break after it, for cmp
	// against the file that was sent.
	raw := len(args) > 0 && args[0] == "-raw"
	if raw {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bodies [-raw] <capture> <out>")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	var out bytes.Buffer
	r := capture.NewReader(f)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		ts.Check(err)
		body, err := rec.RequestBody()
		ts.Check(err)
		if raw {
			out.Write(body)
			out.WriteString("\n")
			continue
		}
		out.WriteString(base64.StdEncoding.EncodeToString(body) + "\n")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), out.Bytes(), 0o644))
}
