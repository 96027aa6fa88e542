package receiver

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// keptAliveRawBackend reads each call whole and answers it with answer's
// raw bytes in one write, keeping the connection open for the next call,
// as a receiver that frames its answers wrong but is otherwise HTTP/1.1.
// Over https (scheme) it serves httptest's certificate; client trusts it.
func keptAliveRawBackend(t *testing.T, scheme, answer string) (u *url.URL, client *http.Client) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var roots *tls.Config
	if scheme == "https" {
		var serving *tls.Config
		serving, roots = testTLS()
		ln = tls.NewListener(ln, serving)
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
	u, _ = url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
	return u, newClient(16, 30*time.Second, roots)
}

// testTLS is a server's TLS configuration with httptest's certificate
// (for 127.0.0.1), and a client's that trusts it, taken from a server
// never used.
func testTLS() (serving, trusting *tls.Config) {
	s := httptest.NewUnstartedServer(http.NotFoundHandler())
	s.StartTLS()
	defer s.Close()
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	return &tls.Config{Certificates: s.TLS.Certificates}, &tls.Config{RootCAs: pool}
}

// A TLS connection to the receiver reads each record whole into a buffer
// of its own (tlsConn), and gives the error crypto/tls read with the
// record (the receiver's close_notify right behind its answer, io.EOF)
// with the record's last byte, as crypto/tls gives it. Given a read
// later, net/http takes the connection for a kept one and gives the next
// call a connection the receiver has closed. (crypto/tls sees the alert
// behind a record under TLS 1.2 only: under 1.3 its type is hidden.)
//
// crypto/tls sees the alert only when its read of the answer's record took
// the alert's bytes too (its look ahead is best effort: about one run in
// nine here it reads the record alone), so the run is made until once it
// did; a tlsConn that holds the error to a later read never gives it so.
func TestTLSConnEOFWithLastByte(t *testing.T) {
	t.Parallel()
	const answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	serving, trusting := testTLS()
	serving.MaxVersion = tls.VersionTLS12
	for range 20 {
		if eofWithLastByte(t, serving, trusting, answer) {
			return
		}
	}
	t.Fatal("in 20 runs no read gave the answer's last byte with io.EOF: the error of the read that took the close_notify was held back")
}

// eofWithLastByte is one run of TestTLSConnEOFWithLastByte: a receiver
// sends answer and its close_notify, both in the client's socket before
// it reads; it says whether the read that gave the answer's last byte
// gave io.EOF with it (the test fails on anything else than the answer,
// then io.EOF).
func eofWithLastByte(t *testing.T, serving, trusting *tls.Config, answer string) bool {
	t.Helper()
	sent := make(chan error, 1)
	ln := testnet.Serve(t, func(c net.Conn) {
		tc := tls.Server(c, serving)
		if _, err := io.WriteString(tc, answer); err != nil {
			sent <- err
			return
		}
		if err := tc.CloseWrite(); err != nil { // the close_notify
			sent <- err
			return
		}
		// Both records in the client's socket before it reads.
		sent <- testnet.WaitTaken(c)
	})
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := net.Dial(network, addr)
		if err != nil {
			return nil, err
		}
		return &countedConn{Conn: c}, nil
	}
	c, err := dialTLS(context.Background(), dial, trusting, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	var got []byte
	p := make([]byte, 4) // as a reader that asks less than a record
	for {
		n, err := c.Read(p)
		got = append(got, p[:n]...)
		switch {
		case err == io.EOF && len(got) == len(answer) && string(got) == answer:
			return n > 0
		case err != nil || len(got) > len(answer):
			t.Fatalf("read %q, then %d bytes and %v; want %q, then io.EOF", got, n, err, answer)
		}
	}
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
		for _, scheme := range []string{"http", "https"} {
			t.Run(scheme+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				u, client := keptAliveRawBackend(t, scheme, tt.answer)
				srv, _, mem := start(t, Config{ForwardTo: u, Client: client})
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
}

// An answer framed short of the bytes the receiver sent after it is
// judged malformed on every connection, at a concurrency: judged once the
// forward had read the body, as it was, net/http had put the connection
// back in its pool by then, and another forward given it took the bytes
// for its own answer's start; one call in twelve at a concurrency of 2
// was passed on as clean (and over https none was judged). The others
// given the connections after get answers of their own, as clean as the
// receiver's are.
func TestForwardMalformedFramingConcurrent(t *testing.T) {
	t.Parallel()
	const workers, each = 2, 25
	for _, tt := range []struct {
		name, method, answer, want string
	}{
		{"Content-Length short of its body", http.MethodPost, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA",
			"malformed answer: the receiver answered 200 with Content-Length 2 and sent bytes after that body"},
		{"204 with a body", http.MethodPost, "HTTP/1.1 204 No Content\r\n\r\nhello",
			"malformed answer: the receiver answered 204 and sent bytes after its head, which a 204 has no body after"},
		{"304 with a body", http.MethodPost, "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello",
			"malformed answer: the receiver answered 304 and sent bytes after its head, which a 304 has no body after"},
		{"an answer to HEAD with a body", http.MethodHead, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
			"malformed answer: the receiver answered 200 to HEAD and sent bytes after its head, which frames no body: bytes no call asked for after an answer (an answer to HEAD with a body)"},
	} {
		for _, scheme := range []string{"http", "https"} {
			t.Run(scheme+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				u, client := keptAliveRawBackend(t, scheme, tt.answer)
				srv, _, mem := start(t, Config{ForwardTo: u, Client: client})
				var wg sync.WaitGroup
				statuses := make(chan int, workers*each)
				for range workers {
					wg.Go(func() {
						for range each {
							req, err := http.NewRequest(tt.method, srv.URL+"/webhook?businessType="+ev, strings.NewReader(`{"a":1}`))
							if err != nil {
								t.Error(err)
								return
							}
							resp, err := srv.Client().Do(req)
							if err != nil {
								t.Error(err)
								return
							}
							resp.Body.Close()
							statuses <- resp.StatusCode
						}
					})
				}
				wg.Wait()
				srv.Close()
				close(statuses)
				for st := range statuses {
					if st != http.StatusBadGateway {
						t.Errorf("a sender got %d, want listen's 502 for every call: every answer was malformed", st)
					}
				}
				judged := 0
				for i, rec := range mem.recs {
					switch f := rec.Forward; {
					case f == nil:
						t.Errorf("record %d: no forward recorded", i+1)
					case strings.HasPrefix(f.Error, tt.want):
						judged++
					default:
						t.Errorf("record %d: forward error %q, want it to start %q", i+1, f.Error, tt.want)
					}
				}
				if len(mem.recs) != workers*each || judged != workers*each {
					t.Errorf("%d of %d records judged malformed, want %d of %d", judged, len(mem.recs), workers*each, workers*each)
				}
			})
		}
	}
}

// The heads of an answer are read as they came: any 1xx heads, then the
// answer's own, its framing fields by name in any case, its
// Content-Length's value as net/http reads it (-1 for none it reads).
func TestParseHeads(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in string
		ok       bool
		headLen  int64
		status   int
		cl, te   bool
		length   int64
	}{
		{"plain", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true, 38, 200, true, false, 2},
		{"bare line ends", "HTTP/1.0 200 OK\nContent-Length: 2\n\nok", true, 35, 200, true, false, 2},
		{"1xx first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", true, 80, 204, false, true, -1},
		{"a 1xx's Content-Length is not the answer's", "HTTP/1.1 103 Early Hints\r\nContent-Length: 9\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", true, 66, 200, false, false, -1},
		{"Content-Length twice, the same", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length:2 \r\n\r\nok", true, 57, 200, true, false, 2},
		{"Content-Length twice, differing", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", true, 57, 200, true, false, -1},
		{"Content-Length no number", "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n", true, 39, 200, true, false, -1},
		{"head not whole", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", false, 0, 0, false, false, 0},
		{"no HTTP", "HELLO\r\n\r\n", false, 0, 0, false, false, 0},
		{"no code", "HTTP/1.1 2x0 OK\r\n\r\n", false, 0, 0, false, false, 0},
		{"empty", "", false, 0, 0, false, false, 0},
		{"a long s is no s", "HTTP/1.1 200 OK\r\nTran\u017ffer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n", true, 67, 200, true, false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := parseHeads([]byte(tt.in))
			if ok != tt.ok || ok && (f.headLen != tt.headLen || f.status != tt.status || f.contentLength != tt.cl || f.transferEnc != tt.te || f.length != tt.length) {
				t.Errorf("parseHeads = %+v, %v; want ok %v, head %d bytes, status %d, Content-Length %v (%d), Transfer-Encoding %v", f, ok, tt.ok, tt.headLen, tt.status, tt.cl, tt.length, tt.te)
			}
		})
	}
}

// An answer's framing is judged whatever reads its bytes come in: the
// bytes after its framed end in the read that reached it, or waiting
// after that read (unread), make it malformed, and that read gives its
// reader the answer's bytes alone; an answer with none after its end is
// not. Every way of cutting each answer into reads is tried. Each kind
// found is named as the summary names them (MalformedKinds).
func TestAnswerWatchReads(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, answer string
		end                  int    // the answer's framed end; its bytes past it are no call's
		want                 string // "" for a clean answer
	}{
		{"Content-Length short of its body", http.MethodPost, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", 40,
			"with Content-Length 2 and sent bytes after that body"},
		{"a 204 or 304 with a body", http.MethodPost, "HTTP/1.1 204 No Content\r\n\r\nhi", 27, "and sent bytes after its head, which a 204 has no body after"},
		{"a 204 or 304 with a body", http.MethodPost, "HTTP/1.1 304 Not Modified\r\nContent-Length: 2\r\n\r\nhi", 48, "and sent bytes after its head, which a 304 has no body after"},
		{"an answer to HEAD with a body", http.MethodHead, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 38, "to HEAD and sent bytes after its head"},
		{"both Content-Length and Transfer-Encoding", http.MethodPost, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", -1,
			"with both Content-Length and Transfer-Encoding"},
		{"a clean 200", http.MethodPost, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", -1, ""},
		{"clean to HEAD", http.MethodHead, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", -1, ""},
		{"clean chunked", http.MethodPost, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", -1, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want != "" && !strings.Contains(MalformedKinds, tt.name) {
				t.Errorf("MalformedKinds %q does not name %q", MalformedKinds, tt.name)
			}
			for size := 1; size <= len(tt.answer); size++ {
				w := newAnswerWatch(tt.method)
				given, malformed := 0, false
				for at := 0; at < len(tt.answer) && !malformed; at += size {
					b := []byte(tt.answer[at:min(at+size, len(tt.answer))])
					next := at + len(b)
					var keep int
					keep, malformed = w.saw(b, func() int { return len(tt.answer) - next })
					given += keep
				}
				switch {
				case tt.want == "" && (malformed || w.fault != ""):
					t.Errorf("reads of %d bytes: judged malformed (%q), want clean", size, w.fault)
				case tt.want != "" && !strings.HasPrefix(w.fault, tt.want):
					t.Errorf("reads of %d bytes: fault %q, want it to start %q", size, w.fault, tt.want)
				case tt.end >= 0 && (!malformed || given != tt.end):
					t.Errorf("reads of %d bytes: %d bytes given its reader, malformed %v; want the %d of the framed answer, then the end", size, given, malformed, tt.end)
				}
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
		if h.length < -1 || h.length >= 0 && !h.contentLength {
			t.Fatalf("Content-Length %d (%v) in %q", h.length, h.contentLength, b)
		}
	})
}

// An answer whose head net/http refuses (a status that is no number, a
// status line that is none, garbage, a status under 100) is the
// receiver's answer, malformed: its forward says so in the words
// IsMalformedAnswer knows, as a framing fault's does, so that the
// summary counts it malformed, not as a forward that got no answer. It
// said net/http's words alone ("malformed HTTP status code") and "it may
// hold it", and the summary said "0 answered" of a receiver that had
// answered every call (found by fw46).
func TestForwardMalformedHead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, answer, quote string }{
		{"status not a number", "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", `malformed HTTP status code "2x0"`},
		{"garbage", "garbage\r\n\r\n", `malformed HTTP response "garbage"`},
		{"no version", "HTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", `malformed HTTP version "HTP/1.1"`},
		{"a header line that is none", "HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 0\r\n\r\n", `malformed MIME header`},
		{"status under 100", "HTTP/1.1 042 Odd\r\nContent-Length: 0\r\n\r\n", "status code 042, which is no HTTP status"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := rawAnswerBackend(t, tt.answer)
			srv, _, mem := start(t, Config{ForwardTo: u})
			resp := post(t, srv, ev, `{"a":1}`)
			srv.Close()
			if resp.StatusCode != http.StatusBadGateway {
				t.Errorf("the sender got %d, want 502", resp.StatusCode)
			}
			if len(mem.recs) != 1 || mem.recs[0].Forward == nil {
				t.Fatalf("%d records, want 1 with its forward", len(mem.recs))
			}
			f := mem.recs[0].Forward
			if !IsMalformedAnswer(f.Error) || !strings.Contains(f.Error, tt.quote) || !strings.Contains(f.Error, "it may hold it") {
				t.Errorf("forward error %q: want a malformed answer's words (%q), net/http's %q, and that the receiver may hold the call", f.Error, malformedLead, tt.quote)
			}
		})
	}
}

// A receiver that writes bytes after an answer's framed end (a second
// answer, a body past its Content-Length) on a kept-alive connection has
// them taken for the start of the next call's answer on it: a second
// answer that came whole and alone was passed on as the next call's, to
// a call the receiver had not answered yet, or never read. Once such an
// answer is seen, listen keeps no connection to it alive, and says why:
// stray bytes, not a close. It kept them the whole run, 967 forwards in
// 2000 at send -c 16 judged malformed with an earlier call's status, and
// one run in two a call the receiver never read was answered the 201 of
// another (found by fw46).
func TestForwardBytesPastTheEndKeepNoConnection(t *testing.T) {
	t.Parallel()
	u, client := keptAliveRawBackend(t, "http", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
	var told []bool
	srv, _, mem := start(t, Config{ForwardTo: u, Client: client, ClosesKept: func(stray bool) { told = append(told, stray) }})
	for range 3 {
		post(t, srv, ev, `{"a":1}`)
	}
	srv.Close()
	if len(mem.recs) != 3 {
		t.Fatalf("%d records", len(mem.recs))
	}
	for i, rec := range mem.recs {
		if f := rec.Forward; f == nil || !IsMalformedAnswer(f.Error) || !strings.Contains(f.Error, "answered 200") {
			t.Errorf("call %d: forward %+v, want its own 200 judged malformed", i+1, f)
		}
	}
	if len(told) != 1 || !told[0] {
		t.Errorf("ClosesKept told %v, want once, of stray bytes", told)
	}
}

// A receiver that closes its connection in the middle of its answer's
// head sent no whole answer: the forward says where the head stopped and
// the bytes that came, in words IsMalformedAnswer does not know, so the
// summary counts it with no whole answer, as an answer cut after its
// status line is. A head cut in a header line ("Content-Le", then the
// close) was counted malformed in net/http's words, "malformed MIME
// header: missing colon", of a line the close had cut (found by fw46,
// fixed by fx47). A head whose whole lines net/http refuses is malformed
// however it ends.
func TestForwardHeadCutShort(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, answer string
		malformed    bool
		want         []string
	}{
		{"cut in a header line", "HTTP/1.1 200 OK\r\nContent-Le", false,
			[]string{"closed the connection in a header line of its answer's head", `after 27 bytes ("HTTP/1.1 200 OK\r\nContent-Le")`, "no whole answer came", "it may hold it"}},
		{"cut in the status line", "HTTP/1.1 2", false,
			[]string{"closed the connection in the status line of its answer's head", `after 10 bytes ("HTTP/1.1 2")`}},
		{"cut between a header line's CR and LF", "HTTP/1.1 200 OK\r\nContent-Length: 5\r", false,
			[]string{"in a header line of its answer's head", "after 35 bytes"}},
		{"cut in the empty line that ends the head", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r", false,
			[]string{"before the end of its answer's head", "after 37 bytes"}},
		{"cut after a header line", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", false,
			[]string{"before the end of its answer's head", "after 36 bytes"}},
		{"cut after a 100 Continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A", false,
			[]string{"in a header line of its answer's head", "after 45 bytes"}},
		{"a whole line refused, then cut", "HTTP/1.1 200 OK\r\nno colon here\r\nContent-Le", true,
			[]string{"malformed MIME header", "it may hold it"}},
		{"garbage, then cut", "garbage", true,
			[]string{`malformed HTTP response "garbage"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := rawAnswerBackend(t, tt.answer)
			srv, _, mem := start(t, Config{ForwardTo: u})
			resp := post(t, srv, ev, `{"a":1}`)
			srv.Close()
			if resp.StatusCode != http.StatusBadGateway {
				t.Errorf("the sender got %d, want 502", resp.StatusCode)
			}
			if len(mem.recs) != 1 || mem.recs[0].Forward == nil {
				t.Fatalf("%d records, want 1 with its forward", len(mem.recs))
			}
			f := mem.recs[0].Forward
			if got := IsMalformedAnswer(f.Error); got != tt.malformed {
				t.Errorf("forward error %q: malformed %v, want %v", f.Error, got, tt.malformed)
			}
			for _, w := range tt.want {
				if !strings.Contains(f.Error, w) {
					t.Errorf("forward error %q, want it to say %q", f.Error, w)
				}
			}
		})
	}
}
