package receiver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// keptAliveRawBackend reads each call whole and answers it with answer's
// raw bytes in one write, keeping the connection open for the next call,
// as a receiver that frames its answers wrong but is otherwise HTTP/1.1.
func keptAliveRawBackend(t *testing.T, answer string) *url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
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
					if _, err := io.WriteString(c, answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	return u
}

// A receiver behind listen --forward-to that frames its answer as no
// HTTP/1.1 answer may be (a Content-Length short of the body it writes, a
// 204 or 304 with a body, both Content-Length and Transfer-Encoding) had
// its answer passed on as clean: net/http's client reads the answer as
// framed and drops the rest with the connection, so the sender got a 200
// and the record said nothing, where send straight to the receiver counts
// bytes no call asked for. The sender now gets listen's 502, and the
// record, still made, says the answer was malformed and how.
func TestForwardMalformedFraming(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 6000) // past net/http's 4 KiB read buffer
	for _, tt := range []struct {
		name, answer string
		want         string // "" for an answer passed on as it came
	}{
		{"Content-Length short of its body",
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA",
			"malformed answer: the receiver answered 200 with Content-Length 2 and sent bytes after that body: bytes no call asked for after an answer (a Content-Length short of its body)"},
		{"Content-Length short of a long body",
			"HTTP/1.1 200 OK\r\nContent-Length: 6000\r\n\r\n" + long + "EXTRA",
			"malformed answer: the receiver answered 200 with Content-Length 6000 and sent bytes after that body"},
		{"204 with a body",
			"HTTP/1.1 204 No Content\r\n\r\nhello",
			"malformed answer: the receiver answered 204 and sent bytes after its head, which a 204 has no body after: bytes no call asked for after an answer (a 204 with a body)"},
		{"304 with a body",
			"HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello",
			"malformed answer: the receiver answered 304 and sent bytes after its head, which a 304 has no body after"},
		{"both Content-Length and Transfer-Encoding",
			"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
			"malformed answer: the receiver answered 200 with both Content-Length and Transfer-Encoding, which no HTTP/1.1 answer may have (RFC 9112 6.2)"},
		{"both, lower case, bare line ends",
			"HTTP/1.1 201 Created\ntransfer-encoding: chunked\ncontent-length: 2\n\n2\r\nok\r\n0\r\n\r\n",
			"malformed answer: the receiver answered 201 with both Content-Length and Transfer-Encoding"},
		{"a clean 200", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", ""},
		{"a clean long 200", "HTTP/1.1 200 OK\r\nContent-Length: 6000\r\n\r\n" + long, ""},
		{"a clean 204", "HTTP/1.1 204 No Content\r\n\r\n", ""},
		{"a clean chunked 200", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", ""},
		{"a 100 Continue, then a clean 200", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", ""},
		{"a 100 Continue, then a 200 short of its body", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nok",
			"malformed answer: the receiver answered 200 with Content-Length 1 and sent bytes after that body"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _, mem := start(t, Config{ForwardTo: keptAliveRawBackend(t, tt.answer)})
			// Three calls in turn: a clean answer's connection is kept
			// and its next call judged as the first was.
			var got []int
			for range 3 {
				got = append(got, post(t, srv, ev, `{"a":1}`).StatusCode)
			}
			srv.Close()
			if len(mem.recs) != 3 {
				t.Fatalf("%d records, want 3: every call is recorded", len(mem.recs))
			}
			for i, rec := range mem.recs {
				f := rec.Forward
				if f == nil {
					t.Fatalf("call %d: no forward recorded", i+1)
				}
				switch {
				case tt.want == "" && (got[i] == http.StatusBadGateway || f.Error != ""):
					t.Errorf("call %d: the sender got %d, forward error %q; want the receiver's answer passed on", i+1, got[i], f.Error)
				case tt.want != "" && got[i] != http.StatusBadGateway:
					t.Errorf("call %d: the sender got %d, want listen's 502: the receiver's answer was malformed", i+1, got[i])
				case tt.want != "" && !strings.HasPrefix(f.Error, tt.want):
					t.Errorf("call %d: forward error %q, want it to start %q", i+1, f.Error, tt.want)
				}
			}
		})
	}
}

// The heads of an answer are read as they came: any 1xx heads, then the
// answer's own, its framing fields by name in any case.
func TestParseHeads(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in string
		ok       bool
		headLen  int64
		cl, te   bool
	}{
		{"plain", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true, 38, true, false},
		{"bare line ends", "HTTP/1.0 200 OK\nContent-Length: 2\n\nok", true, 35, true, false},
		{"1xx first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", true, 80, false, true},
		{"head not whole", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", false, 0, false, false},
		{"no HTTP", "HELLO\r\n\r\n", false, 0, false, false},
		{"no code", "HTTP/1.1 2x0 OK\r\n\r\n", false, 0, false, false},
		{"empty", "", false, 0, false, false},
		{"a long s is no s", "HTTP/1.1 200 OK\r\nTran\u017ffer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n", true, 67, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := parseHeads([]byte(tt.in))
			if ok != tt.ok || ok && (f.headLen != tt.headLen || f.contentLength != tt.cl || f.transferEnc != tt.te) {
				t.Errorf("parseHeads = %+v, %v; want ok %v, head %d bytes, Content-Length %v, Transfer-Encoding %v", f, ok, tt.ok, tt.headLen, tt.cl, tt.te)
			}
		})
	}
}

// parseHeads reads a receiver's bytes, untrusted: it never panics, and a
// head it reads whole lies within them, ending at an empty line.
func FuzzParseHeads(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.0 200 OK\nContent-Length: 2\n\nok",
		"HTTP/1.1 2",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, ok := parseHeads(b)
		if !ok {
			return
		}
		if h.headLen < 2 || h.headLen > int64(len(b)) || b[h.headLen-1] != '\n' {
			t.Fatalf("head of %d bytes in %q", h.headLen, b)
		}
	})
}
