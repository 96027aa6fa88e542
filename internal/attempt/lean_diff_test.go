package attempt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// leanAnswers are answers whose framing net/http's reader and readLean
// must agree on: each one's head is taken or refused alike, its body read
// to the same end or failed alike.
var leanAnswers = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 02\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	// Framed two ways, in either order, with a Content-Length past the
	// chunks or not one at all: read as chunked only if the Content-Length
	// alone would be taken.
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 50\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: 1\r\n\r\n",
	// A chunked answer's Trailer field may announce no framing field
	// (net/http: "bad trailer key"); another's is not looked at, nor is
	// an HTTP/1.0 one's, which knows no chunks.
	"HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTrailer: X-A, transfer-encoding\r\nTrailer: TRAILER\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nTrailer: Content-Length \r\nTransfer-Encoding: chunked\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.0 200 OK\r\nTrailer: Trailer\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTrailer: Tran\u017ffer-Encoding, Content-Length2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTrailer: X-T\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nRetry-After: 1\r\n 2\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\n b\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-A: a\r\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX A: ab\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\n: ab\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
	"HTTP/1.1 503 Busy\r\nRetry-After: 1\r\n\r\n",
	"HTTP/1.1 302 Found\r\nLocation: /x\r\nLocation: /y\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\n",
	"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
	// Lines longer than the reader's buffer (4 KiB): net/http reads a
	// line of any length within the head's cap.
	"HTTP/1.1 200 OK\r\nX-Long: " + long + "\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 " + long + "\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 429 Slow\r\nX-A: a\r\n " + long + "\r\nRetry-After: 7\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 302 Found\r\nLocation: /" + long + "\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: " + long + "\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX-Long: " + long + "\x00\r\nContent-Length: 2\r\n\r\nok",
}

// long is a field value longer than a reader's buffer.
var long = strings.Repeat("a", 10000)

// readLean frames every answer as http.ReadResponse and its body's reader
// do, so that the fast path and net/http's (taken with -v, for https and
// by check) judge a receiver alike: a head one refuses the other refuses,
// a body one reads to its end the other reads to the same end, where the
// next answer starts, and one that fails fails on both. readLean is
// stricter on purpose only about the status line (statusOf).
func TestReadLeanFramesAsNetHTTP(t *testing.T) {
	for _, a := range leanAnswers {
		if msg := leanDiff(a); msg != "" {
			t.Errorf("%q: %s", a, msg)
		}
	}
}

func FuzzReadLeanFramesAsNetHTTP(f *testing.F) {
	for _, a := range leanAnswers {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, a string) {
		if msg := leanDiff(a); msg != "" {
			t.Errorf("%q: %s", a, msg)
		}
	})
}

// leanDiff is how readLean and net/http differ on answer a followed by
// another answer, "" for not at all.
func leanDiff(a string) string {
	const next = "HTTP/1.1 299 Next\r\nContent-Length: 0\r\n\r\n"
	line, _, _ := strings.Cut(a, "\n")
	if _, ok := statusOf([]byte(line + "\n")); !ok || len(a) > maxHead {
		return "" // readLean refuses more status lines; heads past its cap are cut
	}
	nr := bufio.NewReader(strings.NewReader(a + next))
	want, werr := http.ReadResponse(nr, &http.Request{Method: http.MethodPost})
	var wbody error
	if werr == nil {
		_, wbody = io.Copy(io.Discard, want.Body)
	}
	lr := bufio.NewReader(strings.NewReader(a + next))
	var got http.Response
	gerr := readLean(lr, http.MethodPost, &got, nil, nil, nil)
	// An answer that comes a byte at a time (a reader's buffer filled
	// again mid-line) reads as one that comes at once.
	slow := bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(a+next)), 4096)
	var got1 http.Response
	if err1 := readLean(slow, http.MethodPost, &got1, nil, nil, nil); (err1 == nil) != (gerr == nil) || err1 == nil &&
		(got1.StatusCode != got.StatusCode || got1.Close != got.Close || got1.Header.Get("Retry-After") != got.Header.Get("Retry-After")) {
		return fmt.Sprintf("read a byte at a time: %d %v, at once: %d %v", got1.StatusCode, err1, got.StatusCode, gerr)
	}
	switch {
	case werr != nil && gerr == nil:
		return "net/http refuses the head (" + werr.Error() + "), readLean takes it"
	case werr != nil:
		return ""
	case wbody != nil && gerr == nil:
		return "net/http fails the body (" + wbody.Error() + "), readLean reads it"
	case wbody == nil && gerr != nil:
		return "net/http reads it, readLean fails: " + gerr.Error()
	case gerr != nil:
		return ""
	case got.StatusCode != want.StatusCode:
		return "status differs"
	case got.Close != want.Close:
		return "Close differs"
	case got.Header.Get("Retry-After") != want.Header.Get("Retry-After"), got.Header.Get("Location") != want.Header.Get("Location"):
		return "Retry-After or Location differs"
	}
	wrest, _ := io.ReadAll(nr)
	grest, _ := io.ReadAll(lr)
	if !bytes.Equal(wrest, grest) {
		return "the body ends elsewhere: next " + strconv.Quote(string(grest)) + ", net/http's " + strconv.Quote(string(wrest))
	}
	return ""
}

// readLean reads a kept-alive answer without allocating: it runs for every
// delivery.
func TestReadLeanAllocatesNothing(t *testing.T) {
	answer := strings.Repeat("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nX-Other: 1\r\n\r\nok", 200)
	sr := strings.NewReader(answer)
	br := bufio.NewReader(sr)
	var resp http.Response
	allocs := testing.AllocsPerRun(100, func() {
		if err := readLean(br, http.MethodPost, &resp, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations an answer, want 0", allocs)
	}
}

// tokenByte's masks say what RFC 9110's tchar says.
func TestTokenByte(t *testing.T) {
	const tchar = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for c := range 256 {
		if got, want := tokenByte(byte(c)), strings.IndexByte(tchar, byte(c)) >= 0; got != want {
			t.Errorf("tokenByte(%q) = %v, want %v", byte(c), got, want)
		}
	}
}

// refusedAnswers are answers net/http's reader refuses, or takes with a
// status whsim refuses (malformedStatus), that the fast path refuses too.
var refusedAnswers = []string{
	"HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200X\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 +200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 -20 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 099 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 600 Beyond\nContent-Length: 2\n\nok",
	"http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/0.9 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.10 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1\t200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200\r\r\nContent-Length: 2\r\n\r\nok",
	"garbage\r\n\r\n",
	"\x00\x00\x12\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64\r\n",
	"HTTP/1.1 200 OK\r\nBogus\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\n " + long + "\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 05\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 02\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\nContent-Length: x\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\nTransfer-Encoding: gzip\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	// net/http reads the whole head before it judges the framing, and
	// the status after that; it quotes a field with its name made canonical.
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nBogus\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: x\r\nContent-Length: y\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nok",
	"HTTP/1.1 000 \nTransfer-Encoding: 0\nBogus\n\n",
	"HTTP/1.1 600 Beyond\r\nx-a: a\x00b\r\n\r\n",
	// A head cut by the close mid-field: net/http takes the bytes before
	// it for a line, one without a colon a malformed one. Before, the
	// fast path said "connection closed" of them, net/http's path
	// "malformed answer": the transports disagreed on one receiver.
	"HTTP/1.1 200 OK\r\nContent-Le",
	"HTTP/1.1 200 OK\r\nX-A: b\r\n\r",
	"HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: "+strings.Repeat("a", 1000)+"\r\n", 1100) + "Content-Length: 2\r\n\r\nok",
}

// A refused answer is refused in the same words on the fast path as on
// net/http's (-v, https, check's first call, WHSIM_TRANSPORT=net/http):
// before, a status 600 read `malformed HTTP status line "HTTP/1.1 600
// Beyond\n"` from whsim send and `malformed HTTP status code "600
// Beyond"` from whsim send -v.
func TestReadLeanRefusesInNetHTTPsWords(t *testing.T) {
	for _, a := range append(append([]string{}, leanAnswers...), refusedAnswers...) {
		want, got := refusals(a)
		switch {
		case want == "" && got == nil:
		case want == "" || got == nil:
			t.Errorf("%.80q: net/http refuses it with %q, the fast path with %v", a, want, got)
		case unwrapped(got.Error()) != want:
			t.Errorf("%.80q: the fast path says\n\t%s\nnet/http's path\n\t%s", a, unwrapped(got.Error()), want)
		}
	}
}

// Answers whose head came whole (an empty line in them: one cut short is
// a closed connection, an error of another kind) are refused in the same
// words on both paths, whatever their bytes.
func FuzzReadLeanRefusesInNetHTTPsWords(f *testing.F) {
	for _, a := range append(append([]string{}, leanAnswers...), refusedAnswers[:len(refusedAnswers)-1]...) {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, a string) {
		if len(a) > 1<<16 || !strings.Contains(a, "\n\n") && !strings.Contains(a, "\n\r\n") {
			return
		}
		want, got := refusals(a)
		if want != "" && got != nil && !strings.Contains(want, "EOF") && !strings.Contains(got.Error(), "EOF") {
			if unwrapped(got.Error()) != want {
				t.Errorf("%q: the fast path says %q, net/http's path %q", a, unwrapped(got.Error()), want)
			}
			if msg := refusedKinds(a); msg != "" {
				t.Errorf("%q: %s", a, msg)
			}
		}
	})
}

// refusals is how net/http's path (netHTTPRefusal) and the fast path
// refuse answer a.
func refusals(a string) (string, error) {
	lim := &capReader{r: strings.NewReader(a), n: maxHead}
	var resp http.Response
	return netHTTPRefusal(a), readLean(bufio.NewReader(lim), http.MethodPost, &resp, nil, nil, lim)
}

// netHTTPRefusal is the words net/http's path refuses answer a with
// (its head, a status whsim refuses, or its body), "" for none.
func netHTTPRefusal(a string) string {
	if err, _ := netHTTPRefusalErr(a); err != nil {
		return unwrapped(err.Error())
	}
	return ""
}

// netHTTPRefusalErr is the error net/http's path refuses answer a with,
// and whether it refused its head (or its status), not its body; nil for
// none.
func netHTTPRefusalErr(a string) (err error, head bool) {
	br := bufio.NewReader(io.LimitReader(strings.NewReader(a), maxHead))
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodPost})
	if errors.Is(err, io.ErrUnexpectedEOF) && len(a) > maxHead {
		// net/http's transport says so of a head past its cap.
		return fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", maxHead), true
	}
	if err != nil {
		return err, true
	}
	if msg := malformedStatus(resp); msg != "" {
		return malformedError(msg), true
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err, false
	}
	return nil, false
}

// A head refused is an answer of the same kind on the fast path as on
// net/http's, a malformed answer (no HTTP/1.x answer a sender takes),
// also when it was only longer than net/http's client takes: both said
// "error" of two Content-Lengths, a status 999, "HELLO" or a 1 MiB head,
// which tells the user nothing. A body refused is no kind of
// the attempt's (Unfinished says it).
func TestRefusedHeadIsAMalformedAnswer(t *testing.T) {
	for _, a := range append(append([]string{}, leanAnswers...), refusedAnswers...) {
		if msg := refusedKinds(a); msg != "" {
			t.Errorf("%.80q: %s", a, msg)
		}
	}
}

// refusedKinds is how the kinds of the fast path's and net/http's
// refusals of answer a's head differ from each other and from
// KindMalformed, "" for not at all.
func refusedKinds(a string) string {
	nerr, head := netHTTPRefusalErr(a)
	_, ferr := refusals(a)
	if !head || ferr == nil || errors.As(ferr, new(bodyError)) {
		return ""
	}
	want := KindMalformed
	if nk, fk := Classify(nerr), Classify(ferr); nk != want || fk != want {
		return fmt.Sprintf("net/http's refusal (%.80q) is of kind %q, the fast path's (%.80q) %q; want %q", nerr.Error(), nk, ferr.Error(), fk, want)
	}
	return ""
}

// An answer whose body cannot be read to its end, the connection closed
// after it, fails in the same words on every path and transport: the fast
// path said "unexpected EOF reading trailer" and net/http's "http:
// unexpected EOF reading trailer", and the fast path kept "http: " on
// another trailer's refusal. (A trailer line cut by the close is still
// said two ways: net/http calls it "suspiciously long", the fast path
// "unexpected EOF reading trailer".)
func TestBodyRefusalsSaidAlikeOnEveryPath(t *testing.T) {
	for _, tc := range []struct{ name, answer, want string }{
		{"no trailer's end", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n", "answer body unreadable (unexpected EOF reading trailer)"},
		{"trailer without end", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: " + strings.Repeat("a", 5000), "answer body unreadable (suspiciously long trailer after chunked body)"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n", "answer body unreadable (invalid byte in chunk length)"},
	} {
		for _, netHTTP := range []bool{false, true} {
			for _, p := range paths {
				t.Run(fmt.Sprintf("%s/net/http %v/%s", tc.name, netHTTP, p.name), func(t *testing.T) {
					t.Parallel()
					target := unaskedServer(t, func(_, _ int, c net.Conn) {
						_, _ = io.WriteString(c, tc.answer)
						c.Close()
					})
					cl, err := NewClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, FollowRedirects: p.follow, NetHTTP: netHTTP})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(cl.CloseIdleConnections)
					u, _ := url.Parse(target)
					d := &Deliverer{Client: cl, Target: u, KeepBody: p.keep}
					var a Attempt
					if p.worker {
						asWorker(d, templates("A", 1), 1, func(r *Result) { a = r.Last() })
					} else {
						a = d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last()
					}
					if got := a.Unfinished(); a.Status != 200 || got != tc.want {
						t.Errorf("status %d, failure %q; want 200, %q", a.Status, got, tc.want)
					}
				})
			}
		}
	}
}
