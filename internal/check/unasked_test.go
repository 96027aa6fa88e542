package check

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
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
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
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
					a, ok := answer(k)
					if !ok {
						return
					}
					if _, err := io.WriteString(c, a); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln
}

const (
	ok200  = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
	err500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
)

// A receiver that answers calls twice on a kept-alive connection has its
// answers read as other calls' (a 500 that was the call before's second
// answer), or has its connection dropped unsaid. No case is graded on
// such an answer, pass or fail: each is inconclusive, saying what was
// seen.
func TestAnswersOnAConnectionHoldingUnaskedBytesAreInconclusive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer func(k int) string
		// clean is how many cases may pass: one whose answer was the only
		// one on its connection, nothing following it, was answered once.
		clean int
	}{
		// The first call's second answer comes with the second call's:
		// read as the second call's answer, its own left behind.
		{"second answer late", func(k int) string {
			if k == 0 {
				return ok200
			}
			return err500 + ok200
		}, 1},
		{"answered twice at once", func(int) string { return ok200 + err500 }, 0},
		{"204 with a body", func(int) string { return "HTTP/1.1 204 No Content\r\n\r\n" + err500 }, 0},
		{"Content-Length short", func(int) string { return "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nok\x1b[31m" }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, twiceServer(t, tc.answer))
			cfg.Signer = nil
			cfg.Checks = []string{acceptsValid}
			sum, results, err := run(t, context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			rs := ofCheck(results, acceptsValid)
			if len(rs) == 0 {
				t.Fatal("no accepts-valid result")
			}
			for _, r := range rs {
				if r.Verdict == Pass && tc.clean > 0 {
					continue
				}
				if r.Verdict != Warn || !r.Inconclusive || !strings.Contains(r.Reason, "no call asked for") {
					t.Errorf("%s: %s %q, want inconclusive: the connection held bytes no call asked for", r.Case.Name, r.Verdict, r.Reason)
				}
				if strings.ContainsRune(r.Reason, 0x1b) {
					t.Errorf("%s: reason %q quotes the receiver's bytes raw", r.Case.Name, r.Reason)
				}
			}
			if tl := sum.Checks[acceptsValid]; tl.Pass > tc.clean || tl.Fail != 0 || tl.Inconclusive != len(rs)-tl.Pass {
				t.Errorf("tally %+v, want %d inconclusive, at most %d passed, none failed", *tl, len(rs)-tl.Pass, tc.clean)
			}
		})
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

// The load check's calls go on a run's own connections (the fast path on
// plain HTTP): a receiver that answers each twice has the load judged on
// neither its figures nor its statuses, which may be other calls'.
func TestLoadOnConnectionsHoldingUnaskedBytesIsInconclusive(t *testing.T) {
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
	if len(rs) != 1 || rs[0].Verdict != Warn || !rs[0].Inconclusive || !strings.Contains(rs[0].Reason, "no call asked for") {
		t.Fatalf("load %+v, want one inconclusive result naming the bytes no call asked for", rs)
	}
	if strings.Contains(rs[0].Reason, "buckles") {
		t.Errorf("reason %q blames load for answers that were other calls'", rs[0].Reason)
	}
	if tl := sum.Checks[Load]; tl.Fail != 0 || tl.Inconclusive != 1 {
		t.Errorf("tally %+v", *tl)
	}
}

// check --rerun judges no case on an answer that may be another call's:
// against a receiver whose answers on a connection come after the call
// before's second answer, a case is neither FIXED nor STILL FAILING
// ("got 500, want 4xx" was the call before's answer) but NOT RERUN,
// saying why.
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
	for _, r := range out[:2] {
		if r.Outcome != NotRerun || !strings.Contains(r.Reason, "no call asked for") {
			t.Errorf("%s: %s %q, want not rerun: the connection held bytes no call asked for", r.Case.Name, r.Outcome, r.Reason)
		}
	}
	if r := out[2]; r.Outcome != StillFailing || r.Status != 200 {
		t.Errorf("%s: %s %q, want still failing on its own 200", r.Case.Name, r.Outcome, r.Reason)
	}
}
