package check

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/testnet"
)

// twiceServer is a receiver on raw TCP that writes answer(k) for the k-th
// call on each connection (from 0).
func twiceServer(t *testing.T, answer func(k int) string) string {
	ln := rawReceiver(t, func(k int) (string, bool) { return answer(k), true })
	return "http://" + ln.Addr().String() + "/hook"
}

// rawReceiver is a receiver on raw TCP that reads each call on a
// connection whole and writes answer(k) for the k-th (from 0), or, when
// answer says not to, closes the connection unanswered.
func rawReceiver(t *testing.T, answer func(k int) (string, bool)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	serveCalls(ln, func(_, k int, c net.Conn) bool {
		a, ok := answer(k)
		if !ok {
			return false
		}
		_, err := io.WriteString(c, a)
		return err == nil
	})
	return ln
}

// serveCalls accepts ln's connections and reads each call on one whole,
// then has respond answer the k-th call (from 0) of the conn-th
// connection (from 0) on c; the connection closes when respond says so
// (false) or the sender ends it.
func serveCalls(ln net.Listener, respond func(conn, k int, c net.Conn) bool) {
	go func() {
		for conn := 0; ; conn++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn int) {
				defer c.Close()
				br := bufio.NewReader(c)
				for k := 0; ; k++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					if !respond(conn, k, c) {
						return
					}
				}
			}(conn)
		}
	}()
}

const (
	ok200  = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
	err500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
)

// connReceiverOver is a receiver on raw TCP, over TLS when conf is set
// (its URL then https; each answer one write, so one record), that reads
// each call on a connection whole and writes answer(k) for the k-th (from
// 0); once the first answer on its first connection is written, it writes
// apart when told to (more), then says so (wrote), closing that connection
// after a 408 as a receiver that closes an idle one does.
func connReceiverOver(t *testing.T, conf *tls.Config, answer func(k int) string, apart string, more, wrote chan struct{}) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	scheme := "http"
	if conf != nil {
		ln, scheme = tls.NewListener(ln, conf), "https"
	}
	serveCalls(ln, func(conn, k int, c net.Conn) bool {
		if _, err := io.WriteString(c, answer(k)); err != nil {
			return false
		}
		if conn == 0 && k == 0 && apart != "" {
			<-more
			_, _ = io.WriteString(c, apart)
			if strings.Contains(apart, " 408 ") {
				c.(interface{ CloseWrite() error }).CloseWrite()
			}
			if err := testnet.WaitTaken(c); err != nil {
				t.Error(err)
			}
			close(wrote)
		}
		return true
	})
	return scheme + "://" + ln.Addr().String() + "/hook"
}

// http1TLS is a TLS configuration for a test receiver on 127.0.0.1 that
// offers HTTP/1.1 alone in ALPN, and the roots that trust its
// certificate (httptest's).
func http1TLS(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	defer ts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	return &tls.Config{Certificates: ts.TLS.Certificates, NextProtos: []string{"http/1.1"}}, roots
}

// A receiver that sends bytes no call asked for after an answer on a
// kept-alive connection (a second answer, a 204 with a body, a
// Content-Length short of its body) has an ERP that reuses the connection
// read them as its next call's answer: no other check judges that, so
// the case whose answer they followed (the last read on that connection
// before they were found) fails, saying so. The other cases whose answers
// came on that connection are inconclusive: which call each answer there
// was to cannot be told. A 408 sent on an idle connection as the receiver
// closes it answers no call and is no fault. Before, every case was
// inconclusive: the run had no failure and exited 0.
func TestBytesAfterAnAnswerFailTheCaseTheyFollowed(t *testing.T) {
	t.Parallel()
	const n = 19 // accepts-valid's cases, sent one after another
	for _, tc := range []struct {
		name   string
		answer func(k int) string
		apart  string // written on the first connection once its case is graded
		// status is the blamed answer's status line; fail, inconc and pass
		// count the verdicts.
		status             string
		fail, inconc, pass int
		// racy: the second answer is written apart, once the first
		// case is graded; on a loaded machine it may reach the client
		// only after the next call went out on that connection, which
		// then reads it as its answer and is the case blamed (for its
		// own answer, left after it: the status blamed is the 500), or,
		// handed it before any of the call was written, is not judged,
		// as is every call after it on that connection whose answer may
		// be the one before's. Either way exactly one case fails for the
		// bytes and none passes or fails on an answer not its own.
		racy bool
	}{
		// The first call's second answer comes with the second call's:
		// read as the second call's answer, its own left behind after
		// it, which fails the second. The first call's answer came, and
		// the second call was answered after it, before anything no call
		// asked for: it was the first's own, which passes (Conn.Cleared),
		// and so does the last case, alone on its connection.
		{name: "second answer late", answer: func(k int) string {
			if k == 0 {
				return ok200
			}
			return err500 + ok200
		}, status: "500 Internal Server Error", fail: 9, pass: 10},
		{name: "answered twice at once", answer: func(int) string { return ok200 + err500 }, status: "200 OK", fail: n},
		{name: "204 with a body", answer: func(int) string { return "HTTP/1.1 204 No Content\r\n\r\n" + err500 }, status: "204 No Content", fail: n},
		{name: "Content-Length short", answer: func(int) string { return "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nok\x1b[31m" }, status: "200 OK", fail: n},
		{name: "answered twice, apart", answer: func(int) string { return ok200 }, apart: err500, status: "200 OK", fail: 1, pass: n - 1, racy: true},
		{name: "408 on idle", answer: func(int) string { return ok200 },
			apart: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", pass: n},
	} {
		// Over TLS (HTTP/1.1, no h2 offered) the same: before, nothing
		// was noted there, and the run passed or failed on other calls'
		// answers.
		for _, overTLS := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, TLS %v", tc.name, overTLS), func(t *testing.T) {
				t.Parallel()
				more, wrote := make(chan struct{}), make(chan struct{})
				var conf *tls.Config
				var roots *x509.CertPool
				if overTLS {
					conf, roots = http1TLS(t)
				}
				cfg := testConfig(t, connReceiverOver(t, conf, tc.answer, tc.apart, more, wrote))
				if overTLS {
					client, err := envClient(attempt.ClientOptions{Timeout: callTimeout, Concurrency: 16, RootCAs: roots})
					if err != nil {
						t.Fatal(err)
					}
					cfg.Client = client
				}
				cfg.Signer = nil
				cfg.Checks = []string{acceptsValid}
				if tc.apart != "" {
					var once sync.Once
					// Graded, the first case's answer was read whole: what
					// comes now on its connection follows it.
					cfg.Progress = func(Progress) {
						once.Do(func() {
							close(more)
							<-wrote
						})
					}
				}
				sum, results, err := run(t, context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				rs := ofCheck(results, acceptsValid)
				var fail, inconc, pass int
				for _, r := range rs {
					switch {
					case r.Verdict == Fail:
						fail++
						status := tc.status
						if tc.racy && strings.Contains(r.Reason, `read as its own ("500 Internal Server Error")`) {
							status = "500 Internal Server Error" // the next call read the late second answer
						}
						for _, want := range []string{
							"after the answer read as its own (" + strconv.QuoteToASCII(status) + ") the receiver sent more bytes on the kept-alive connection that no call asked for",
							"a sender reusing the connection reads them as its next call's answer (" + unaskedRule + ")",
						} {
							if !strings.Contains(r.Reason, want) {
								t.Errorf("%s: fail %q, want it to say %q", r.Case.Name, r.Reason, want)
							}
						}
						if tc.apart != "" && status == tc.status && !strings.Contains(r.Reason, `starting "HTTP/1.1 500 Internal Server Error"`) {
							t.Errorf("%s: %q, want the bytes' first line", r.Case.Name, r.Reason)
						}
					case r.Verdict == Warn && r.Inconclusive && strings.Contains(r.Reason, "no call asked for"):
						inconc++
					case r.Verdict == Pass:
						pass++
					default:
						t.Errorf("%s: %s %q", r.Case.Name, r.Verdict, r.Reason)
					}
					if strings.ContainsRune(r.Reason, 0x1b) {
						t.Errorf("%s: reason %q quotes the receiver's bytes raw", r.Case.Name, r.Reason)
					}
				}
				racing := tc.racy && fail == tc.fail && fail+inconc+pass == n
				if !racing && (fail != tc.fail || inconc != tc.inconc || pass != tc.pass) {
					t.Errorf("%d failed, %d inconclusive, %d passed; want %d, %d, %d", fail, inconc, pass, tc.fail, tc.inconc, tc.pass)
					for _, r := range rs {
						t.Logf("%s: %s %q", r.Case.Name, r.Verdict, r.Reason)
					}
				}
				if tl := sum.Checks[acceptsValid]; tl.Fail != fail || tl.Inconclusive != inconc || tl.Warn != inconc || tl.Pass != pass {
					t.Errorf("tally %+v, want it to count the verdicts said", *tl)
				}
			})
		}
	}
}

// The first line of the bytes no call asked for is the receiver's, and is
// quoted so that no terminal, JUnit or JSON reader takes it for anything
// but text: control, bidi and non-ASCII bytes escaped.
func TestUnaskedReasonQuotesTheReceiversBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ first, want string }{
		{"", "(they came with the answer)"},
		{"HTTP/1.1 500 Internal Server Error", `(starting "HTTP/1.1 500 Internal Server Error")`},
		{"HTTP/1.1 500 \x1b[31mred\u202e\x00", `(starting "HTTP/1.1 500 \x1b[31mred\u202e\x00")`},
	} {
		r := &runner{sum: &Summary{Checks: map[string]*Tally{acceptsValid: {Pass: 1}}}}
		res := Result{Case: &Case{Check: acceptsValid, Name: "x"}, Verdict: Pass}
		r.unasked(&res, unaskedWords(tc.first))
		if !strings.Contains(res.Reason, tc.want) || res.Verdict != Warn || !res.Inconclusive {
			t.Errorf("%q: %s %q, want inconclusive saying %s", tc.first, res.Verdict, res.Reason, tc.want)
		}
		for _, c := range res.Reason {
			if c < ' ' || c > '~' {
				t.Errorf("%q: reason has %U raw", tc.first, c)
			}
		}
		if tl := r.sum.Checks[acceptsValid]; *tl != (Tally{Warn: 1, Inconclusive: 1}) {
			t.Errorf("%q: tally %+v, want the pass moved to inconclusive", tc.first, *tl)
		}
	}
}

// A case failed for bytes after its answer says the receiver's status
// line and the bytes' first line quoted, so that no terminal, JUnit or
// JSON reader takes them for anything but text; its pass, counted when
// it was graded, becomes a failure in the tally.
func TestStrayAfterReasonQuotesTheReceiversBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ status, first, want string }{
		{"200 OK", "", `after the answer read as its own ("200 OK") the receiver sent more bytes on the kept-alive connection that no call asked for (they came in the same read as the answer)`},
		{"204 No Content", "HTTP/1.1 500 Internal Server Error", `("204 No Content") the receiver sent more bytes on the kept-alive connection that no call asked for (starting "HTTP/1.1 500 Internal Server Error")`},
		{"200 \x1b]8;;x\aOK\u202e", "HTTP/1.1 500 \x1b[31mred\u202e\x00", `("200 \x1b]8;;x\aOK\u202e") the receiver sent more bytes on the kept-alive connection that no call asked for (starting "HTTP/1.1 500 \x1b[31mred\u202e\x00")`},
	} {
		r := &runner{sum: &Summary{Checks: map[string]*Tally{acceptsValid: {Pass: 1}}}}
		res := Result{Case: &Case{Check: acceptsValid, Name: "x"}, Verdict: Pass}
		r.strayAfter(&res, strayAfter(tc.status, tc.first))
		if !strings.Contains(res.Reason, tc.want) || res.Verdict != Fail || res.Inconclusive || !res.strayAfter {
			t.Errorf("%q: %s %q, want a failure saying %s", tc.first, res.Verdict, res.Reason, tc.want)
		}
		for _, c := range res.Reason {
			if c < ' ' || c > '~' {
				t.Errorf("%q: reason has %U raw", tc.first, c)
			}
		}
		if tl := r.sum.Checks[acceptsValid]; *tl != (Tally{Fail: 1}) {
			t.Errorf("%q: tally %+v, want the pass moved to a failure", tc.first, *tl)
		}
	}
}

// The load check's calls go on a run's own connections (the fast path on
// plain HTTP): a receiver that answers each twice has the load judged on
// neither its figures nor its statuses, which may be other calls', but it
// fails for the bytes no call asked for, which an ERP reusing the
// connection reads as its next call's answer: with --checks load alone
// nothing else would. Before, it was inconclusive and the run exited 0.
func TestLoadOnConnectionsHoldingUnaskedBytesFails(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, twiceServer(t, func(k int) string {
		if k == 0 {
			return ok200
		}
		return err500 + ok200
	}))
	cfg.Signer = nil
	cfg.Checks = []string{Load}
	cfg.LoadCount, cfg.LoadConcurrency = 40, 4
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rs := ofCheck(results, Load)
	// Counted by the fast path's connections, the reason says on how many;
	// where its calls went on net/http's (a loaded CI machine's -race run
	// had all forty there), the answer they followed (strayAfter): both
	// name the bytes and what a sender makes of them.
	if len(rs) != 1 || rs[0].Verdict != Fail || rs[0].Inconclusive ||
		!strings.Contains(rs[0].Reason, "no call asked for") ||
		!strings.Contains(rs[0].Reason, "a sender reusing the connection reads them as its next call's answer") {
		t.Fatalf("load %+v, want one failure naming the bytes no call asked for", rs)
	}
	if strings.Contains(rs[0].Reason, "buckles") {
		t.Errorf("reason %q blames load for answers that were other calls'", rs[0].Reason)
	}
	if tl := sum.Checks[Load]; tl.Fail != 1 || tl.Inconclusive != 0 {
		t.Errorf("tally %+v", *tl)
	}
}

// check --rerun judges no case on an answer that may be another call's,
// and every case on one that cannot be: against a receiver whose answers
// on a connection come after the call before's second answer, the first
// case on a connection was answered, and the next call answered after it,
// before anything no call asked for came: its answer is its own, and it is
// judged on it (STILL FAILING, its 200). The second, whose answer the
// bytes followed, is STILL FAILING for them. (Before Conn.Cleared the
// first was NOT RERUN: any bytes on its connection made it so.)
func TestRerunOnAConnectionHoldingUnaskedBytesIsNotJudged(t *testing.T) {
	t.Parallel()
	target := mustURL(t, twiceServer(t, func(k int) string {
		if k == 0 {
			return ok200
		}
		return err500 + ok200
	}))
	var cases []Failed
	for _, name := range []string{"not-json", "empty-body", "json-array"} {
		cases = append(cases, Failed{Check: rejectsMalformed, Name: name, Want: want4xx, Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte("x")})
	}
	var out []RerunResult
	cfg := RerunConfig{Client: testClient(t, callTimeout), Target: target, Now: time.Now}
	if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(cases) {
		t.Fatalf("%d results of %d cases", len(out), len(cases))
	}
	// The first two shared a connection; the third is alone on the next,
	// its one answer its own and nothing after it.
	if r := out[0]; r.Outcome != StillFailing || r.Status != 200 || strings.Contains(r.Reason, "no call asked for") {
		t.Errorf("%s: %s %q, want still failing on its own 200", r.Case.Name, r.Outcome, r.Reason)
	}
	if r := out[1]; r.Outcome != StillFailing || !strings.Contains(r.Reason, "after the answer read as its own") {
		t.Errorf("%s: %s %q, want still failing: bytes no call asked for followed its answer", r.Case.Name, r.Outcome, r.Reason)
	}
	if r := out[2]; r.Outcome != StillFailing || r.Status != 200 {
		t.Errorf("%s: %s %q, want still failing on its own 200", r.Case.Name, r.Outcome, r.Reason)
	}
}

// A case failed for bytes after its answer is FIXED only when its answer
// is right and nothing followed it: a receiver that now answers as the
// case wants but still sends a second answer after it is STILL FAILING,
// saying so. Before, it was FIXED (or NOT RERUN): its answer was right.
func TestRerunOfACaseWhoseAnswerBytesFollowIsStillFailing(t *testing.T) {
	t.Parallel()
	const bad400 = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
	for _, tc := range []struct {
		name, answer, outcome string
	}{
		{"answered twice", bad400 + err500, StillFailing},
		{"answered once", bad400, Fixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := mustURL(t, twiceServer(t, func(int) string { return tc.answer }))
			cases := []Failed{{Check: rejectsMalformed, Name: "not-json", Want: want4xx, Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte("x")}}
			var out []RerunResult
			cfg := RerunConfig{Client: testClient(t, callTimeout), Target: target, Now: time.Now}
			if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || out[0].Outcome != tc.outcome {
				t.Fatalf("%+v, want %s", out, tc.outcome)
			}
			if r := out[0]; tc.outcome == StillFailing && !strings.Contains(r.Reason, `after the answer read as its own ("400 Bad Request") the receiver sent more bytes`) {
				t.Errorf("reason %q, want the bytes after its answer", r.Reason)
			}
		})
	}
}

// heldProbe is a probe that says every document sent is held once, and
// the one never sent is not held.
type heldProbe struct{}

func (heldProbe) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	if strings.HasSuffix(q.Code, "-NONE") {
		return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
	}
	return probe.Answer{Count: 1, State: "created", Lines: -1, Raw: `{"count":1,"state":"created"}`}, nil
}

func (heldProbe) Command(probe.Question) string { return "true" }

// An effects document rerun is FIXED only when what the receiver holds is
// right and no bytes no call asked for followed the answer of one of its
// calls: a receiver that stores the document but answers its call twice
// is STILL FAILING, saying so. Before, the rerun of effects looked only at
// the probe, and said FIXED.
func TestRerunOfAnEffectsDocumentWhoseAnswerBytesFollowIsStillFailing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer, outcome string
	}{
		{"answered twice", ok200 + err500, StillFailing},
		{"answered once", ok200, Fixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := mustURL(t, twiceServer(t, func(int) string { return tc.answer }))
			body := `{"requestId":"8f1c2a34-0000-4000-8000-000000000001","businessType":4000,"data":{"code":"CGFP00000001"}}`
			cases := []Failed{{Check: Effects, Name: "invoice/create", Effects: &EffectsRecord{
				Kind: "invoice", Code: "CGFP00000001", Event: "CREATE_PURCHASE_ORDER_INVOICE", RequestID: "8f1c2a34-0000-4000-8000-000000000001", WantLines: -1,
				Calls: []EffectsCall{{Event: "CREATE_PURCHASE_ORDER_INVOICE", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Body: body, BodyEncoding: "utf8", Copies: 1}},
			}}}
			var out []RerunResult
			cfg := RerunConfig{Client: testClient(t, callTimeout), Target: target, Now: time.Now, Probe: heldProbe{}, IDs: reqid.NewIDs(1)}
			if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || out[0].Outcome != tc.outcome {
				t.Fatalf("%+v, want %s", out, tc.outcome)
			}
			if r := out[0]; tc.outcome == StillFailing && !strings.Contains(r.Reason, `after the answer read as its own ("200 OK") the receiver sent more bytes`) {
				t.Errorf("reason %q, want the bytes after its answer", r.Reason)
			}
		})
	}
}

// A case is said as soon as its answer is known to be its own: the next
// call on its connection answered, nothing no call asked for before it,
// not when the connection closes. Against a receiver that keeps one
// connection alive through a run (most do), the lines came all at once at
// its end. Here the receiver holds its third call until a result is out.
func TestResultsComeBeforeTheConnectionCloses(t *testing.T) {
	t.Parallel()
	out := make(chan struct{})
	var calls atomic.Int32
	var waitedOut atomic.Bool
	ln := rawReceiver(t, func(int) (string, bool) {
		if calls.Add(1) == 3 {
			select {
			case <-out:
			case <-time.After(callTimeout / 2): // a bound within the call's, so that the test ends: waitedOut fails it
				waitedOut.Store(true)
			}
		}
		return ok200, true
	})
	cfg := testConfig(t, "http://"+ln.Addr().String()+"/hook")
	cfg.Signer = nil
	cfg.Checks = []string{acceptsValid}
	var once sync.Once
	sum, err := Run(context.Background(), cfg, func(Result) {
		once.Do(func() { close(out) })
	})
	if err != nil {
		t.Fatal(err)
	}
	if waitedOut.Load() {
		t.Error("no result came while the receiver held its third call: results held to the connection's close")
	}
	if tl := sum.Checks[acceptsValid]; tl.Fail != 0 || tl.Inconclusive != 0 || tl.Pass == 0 {
		t.Errorf("tally %+v, want every case passed", *tl)
	}
}
