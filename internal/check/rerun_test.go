package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
)

// receiptCall is a CREATE_RECEIVABLE_DOC call as a run of accepts-valid
// or duplicates sends it (a rerun reads no other for them), under id.
func receiptCall(t testing.TB, id string) []byte {
	t.Helper()
	e, _ := spec.Lookup("CREATE_RECEIVABLE_DOC")
	doc, err := payload.NewSource(1, payload.Anchor(), spec.Described, nil).Next(e)
	if err != nil {
		t.Fatal(err)
	}
	doc.Put(spec.FieldRequestID, id)
	return payload.Marshal(doc)
}

func testSigner(t testing.TB) *sign.Signer {
	t.Helper()
	s, err := sign.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidSignature(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"requestId":"r"}`)
	sig := s.Signature("msg_1", now.Unix(), body)
	h := func(id, ts, sig string) http.Header {
		out := http.Header{}
		for k, v := range map[string]string{"Webhook-Id": id, "Webhook-Timestamp": ts, "Webhook-Signature": sig} {
			if v != "" {
				out[k] = []string{v}
			}
		}
		return out
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	tests := []struct {
		name string
		h    http.Header
		body []byte
		want bool
	}{
		{"correct", h("msg_1", ts, sig), body, true},
		{"one of several", h("msg_1", ts, "v1,d3Jvbmc= "+sig), body, true},
		{"tampered", h("msg_1", ts, sig), []byte(`{"requestId":"x"}`), false},
		{"other id", h("msg_2", ts, sig), body, false},
		{"no signature", h("msg_1", ts, ""), body, false},
		{"no id", h("", ts, sig), body, false},
		{"no timestamp", h("msg_1", "", sig), body, false},
		{"timestamp not a number", h("msg_1", "soon", sig), body, false},
		{"six minutes old", h("msg_1", strconv.FormatInt(now.Unix()-360, 10), s.Signature("msg_1", now.Unix()-360, body)), body, false},
		{"four minutes old", h("msg_1", strconv.FormatInt(now.Unix()-240, 10), s.Signature("msg_1", now.Unix()-240, body)), body, true},
	}
	for _, tt := range tests {
		if got := validSignature(s, tt.h, tt.body, now); got != tt.want {
			t.Errorf("%s: valid %v, want %v", tt.name, got, tt.want)
		}
	}
}

// reported is the JSON line the reporter writes for a result.
func reported(t testing.TB, rep *Reporter, res Result) []byte {
	t.Helper()
	c := &CaseReport{Result: res, target: rep.Target, user: rep.Header}
	c.sent = rep.sentRequest(res.Case)
	c.Repro = rep.reproduce(c)
	b, err := json.Marshal(c.Record())
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestReadFailed(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://127.0.0.1:9/hook?tenant=7")
	rep := &Reporter{Target: target, Header: http.Header{"Authorization": {"Bearer s3cret"}}, Signer: testSigner(t)}
	body := receiptCall(t, "22222222-2222-4222-8222-222222222222")
	fail := Result{Case: &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/concurrent-x8", Query: "businessType=CREATE_RECEIVABLE_DOC",
		Body: body, RequestID: "22222222-2222-4222-8222-222222222222", Copies: 8, AtOnce: true}, Verdict: Fail, Status: 409, Reason: "7 of 8 got 409"}
	// A body that is not UTF-8 goes in base64 and reads back byte for byte.
	notUTF8 := []byte("{\"requestId\":\"r-2\",\"x\":\"\xff\"}")
	binary := Result{Case: &Case{Check: rejectsMalformed, Name: "not-json", Query: "businessType=CREATE_RECEIVABLE_DOC",
		Body: notUTF8}, Verdict: Fail, Status: 200}
	pass := Result{Case: &Case{Check: acceptsValid, Name: "ok", Body: []byte("{}")}, Verdict: Pass, Status: 200}
	load := Result{Case: &Case{Check: Load, Name: "300-calls-at-16", Body: []byte("{}")}, Verdict: Fail, Status: 500}
	// A warning and a skipped check are no failures to send again.
	warn := Result{Case: &Case{Check: rejectsMalformed, Name: "type-error", Body: []byte("{}")}, Verdict: Warn, Status: 200, Reason: "200 for a type error"}
	skip := Result{Case: &Case{Check: signature, Name: "not-run"}, Verdict: Skip, Reason: "needs --secret"}
	var in bytes.Buffer
	in.Write(reported(t, rep, pass))
	in.Write(reported(t, rep, warn))
	in.Write(reported(t, rep, skip))
	in.Write(reported(t, rep, fail))
	in.Write(reported(t, rep, binary))
	in.WriteString("\n")
	in.Write(reported(t, rep, load))
	in.WriteString(`{"summary":{"checks":{},"failed":true}}` + "\n")
	if bytes.Contains(in.Bytes(), []byte("s3cret")) {
		t.Fatalf("the report holds the credential:\n%s", in.Bytes())
	}
	got, err := ReadFailed(&in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d failed cases, want 3: %+v", len(got), got)
	}
	if !bytes.Equal(got[1].Body, notUTF8) {
		t.Errorf("a body that is not UTF-8 read back as %q, want %q", got[1].Body, notUTF8)
	}
	got = slices.Delete(got, 1, 2)
	f := got[0]
	if f.Check != duplicates || f.Want != want2xx || !bytes.Equal(f.Body, body) || f.Copies != 8 || !f.AtOnce || !f.Resign ||
		f.URL != "http://127.0.0.1:9/hook?tenant=7&businessType=CREATE_RECEIVABLE_DOC" || f.Query != "businessType=CREATE_RECEIVABLE_DOC" ||
		f.Header.Get("Authorization") != "Bearer ****" || f.Header.Get("Webhook-Id") != "22222222-2222-4222-8222-222222222222" {
		t.Errorf("read back %+v", f)
	}
	if got[1].Check != Load || got[1].Want != "" {
		t.Errorf("load: %+v, want no expectation (judged over a run)", got[1])
	}

	for _, tt := range []struct{ in, want string }{
		{"not json\n", "line 1, column 2: not JSON (invalid character 'o' in literal null"},
		{`{"summary":{}}` + "\n" + `{"verdict":"fail"}`, errNotReport.Error()},
		{`{"check":"a","case":"b","verdict":"pass"}` + "\n" + `[1]`, `line 2: the line: want an object, got a list`},
		// A member of the wrong type is named by its path in the line,
		// not by Go's struct and type names.
		{`{"check":"a","case":"b","verdict":"fail","request":{"copies":"8","body":""}}`, `line 1: request.copies: want a whole number, got a string`},
		{`{"check":"a","case":"b","verdict":"fail","status":1e400}`, `line 1: status: want a whole number, got 1e400`},
		{`{"check":"a","case":"b","verdict":"fail","request":{"headers":{"X-A":"v"},"body":""}}`, `line 1: request.headers`}, // .X-A: on Go 1.27, which names the key
		{`{"check":"a","case":"b","verdict":"fail","request":null,"effects":{"calls":{}}}`, `line 1: effects.calls: want a list, got an object`},
		// A byte that is not UTF-8 would be sent as U+FFFD: refused.
		{"{\"check\":\"a\",\"case\":\"b\",\"verdict\":\"fail\",\"request\":{\"body\":\"\xff\",\"bodyEncoding\":\"utf8\"}}", `line 1, column 61: not valid UTF-8 (check writes a body that is not UTF-8 in base64`},
		{`{"summary":{}}`, errNotReport.Error()},
		{"", errNotReport.Error()},
		{`{"check":"a","case":"b","verdict":"fail","request":{"body":"!!","bodyEncoding":"base64"}}`, "line 1: request body"},
		// What no run sends, and no HTTP request can carry: the report was
		// edited, not the receiver at fault.
		{`{"check":"a","case":"b","verdict":"fail","request":{"query":"businessType=X\r\nX-Injected: 1","body":""}}`, `line 1: a b: query "businessType=X\r\nX-Injected: 1": a space or control character, which no run sends`},
		{`{"check":"a","case":"b","verdict":"fail","request":{"headers":{"X-A":["v\r\nX-Injected: 1"]},"body":""}}`, `line 1: a b: header X-A: a value no HTTP request carries`},
		{`{"check":"a","case":"b","verdict":"fail","request":{"headers":{"X A":["v"]},"body":""}}`, `line 1: a b: header "X A": not a header name`},
		{`{"check":"effects","case":"b","verdict":"fail","effects":{"kind":"invoice","code":"C","calls":[{"query":"a b","body":"{}","bodyEncoding":"utf8","copies":1}]}}`, `line 1: effects b: effects call 1: query "a b": a space or control character`},
		// A member named twice is read last-wins by encoding/json, first-
		// wins by others: an edited report is refused, not guessed at.
		{`{"check":"a","case":"b","verdict":"pass","verdict":"fail"}`, `line 1: "verdict" twice in the line: readers differ on which value counts`},
		{"{\"summary\":{}}\n" + `{"check":"a","case":"b","verdict":"fail","request":{"url":"http://127.0.0.1:1/","body":"","URL":"http://evil.example/"}}`,
			`line 2: "url" twice in request, as "url" and "URL": readers differ on which value counts, and on whether case matters`},
		{`{"check":"a","case":"b","verdict":"fail","request":{"headers":{"X-A":["1"],"X-A":["2"]},"body":""}}`, `line 1: "X-A" twice in request.headers`},
		// One header to HTTP: the rerun sent both values under it.
		{`{"check":"a","case":"b","verdict":"fail","request":{"headers":{"X-A":["1"],"x-a":["2"]},"body":""}}`, `line 1: "X-A" twice in request.headers, as "X-A" and "x-a"`},
		{`{"check":"e","case":"b","verdict":"fail","effects":{"calls":[{"copies":1},{"copies":1,"Copies":8}]}}`, `line 1: "copies" twice in effects.calls[2], as "copies" and "Copies"`},
		{`{"check":"a","case":"b","verdict":"fail","Check":"c"}`, `line 1: "check" twice in the line, as "check" and "Check"`},
		// check --rerun's own output names its cases with no verdict: read
		// as a report, 19 cases still failing were "no case failed,
		// nothing to rerun", exit 0.
		{`{"check":"accepts-valid","case":"E/described","rerun":"still-failing","status":500,"wasStatus":500,"reason":"got 500, want 2xx","want":"2xx"}` + "\n" +
			`{"summary":{"allFixed":false,"fixed":0,"interrupted":false,"notRerun":0,"stillFailing":1}}`,
			`line 1: a line of check --rerun's output ("rerun":"still-failing"), not of check --output json: rerun the report its run wrote`},
		// The answer that fixes a case is the check's, not the report's: a
		// report whose want was turned to what the receiver answers read
		// a receiver still accepting malformed calls as FIXED, exit 0.
		{`{"check":"rejects-malformed","case":"not-json","verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: rejects-malformed not-json: want "2xx", but a run of rejects-malformed wants 4xx of it`},
		{`{"check":"duplicates","case":"E/serial-x4","verdict":"fail","want":"2xx or 4xx","request":{"url":"http://127.0.0.1:1/","body":"x","copies":4}}`,
			`line 1: duplicates E/serial-x4: want "2xx or 4xx", but a run of duplicates wants 2xx of it`},
		{`{"check":"load","case":"300-calls-at-16","verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: load 300-calls-at-16: want "2xx", but a run judges load over the whole run, not by one answer`},
		{`{"check":"signature","case":"tampered-body","verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: signature tampered-body: want "2xx", but a run of signature wants 4xx of it`},
		// Its resign flipped too: re-signed correctly, a tampered case
		// becomes one a receiver that verifies nothing accepts, FIXED.
		{`{"check":"signature","case":"tampered-body","verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/","body":"x","resign":true}}`,
			`line 1: signature tampered-body: "resign": true, but a run sends tampered-body with a signature no receiver may accept, never signed afresh`},
		{`{"check":"signature","case":"correct","verdict":"fail","want":"4xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: signature correct: "resign": false, but a run signs correct with the run's secret, to be signed afresh`},
		// A check this whsim does not know, with a want no answer meets
		// ("7xx" read STILL FAILING whatever the receiver answered), is
		// refused as a case no check has: no rerun judges by its want.
		{`{"check":"nope","case":"b","verdict":"fail","want":"7xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`a failed case no check has: nope b`},
		// A malformed call moved under a check whose calls are all valid,
		// its want with it: a receiver still taking anything read FIXED,
		// "all 8 failed cases are fixed", exit 0.
		{`{"check":"accepts-valid","case":"not-json","verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/?businessType=CREATE_RECEIVABLE_DOC","query":"businessType=CREATE_RECEIVABLE_DOC","body":"this is not JSON\\n"}}`,
			`line 1: accepts-valid not-json: its body is no call the ERP sends (json-syntax`},
		{`{"check":"duplicates","case":"x/serial-x2","verdict":"fail","want":"2xx","request":{"url":"http://127.0.0.1:1/?tenant=7","query":"tenant=7","body":"{}","copies":2}}`,
			`line 1: duplicates x/serial-x2: its query "tenant=7" names no event, as every call of duplicates does`},
		{`{"check":"a","case":"b","status":500}`, `line 1: a b: no verdict: want pass, warn, fail or skipped`},
		{`{"check":"a","case":"b","verdict":"FAIL"}`, `line 1: a b: verdict "FAIL": want pass, warn, fail or skipped`},
		// A run writes the status it got: 0 for no answer, else three
		// digits from 100 to 999 (attempt refuses any other answer). An
		// impossible one is an edited line, refused at it (found by hk45).
		{`{"check":"rejects-malformed","case":"not-json","verdict":"fail","status":-1,"want":"4xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: rejects-malformed not-json: status -1: a run writes 0 (no answer) or the HTTP status it got, 100 to 999`},
		{`{"check":"rejects-malformed","case":"not-json","verdict":"fail","status":99,"want":"4xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: rejects-malformed not-json: status 99: a run writes 0 (no answer) or the HTTP status it got, 100 to 999`},
		{`{"check":"rejects-malformed","case":"not-json","verdict":"fail","status":1000,"want":"4xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}`,
			`line 1: rejects-malformed not-json: status 1000: a run writes 0 (no answer) or the HTTP status it got, 100 to 999`},
		{`{"check":"accepts-valid","case":"E/described","verdict":"pass","status":-200}`,
			`line 1: accepts-valid E/described: status -200: a run writes 0 (no answer) or the HTTP status it got, 100 to 999`},
		// A run counts the cases it writes: failed lines turned to "pass"
		// under a summary that still counts them read as "no case failed,
		// nothing to rerun", exit 0, after a failing run.
		{`{"check":"accepts-valid","case":"E/described","verdict":"pass"}` + "\n" + `{"summary":{"checks":{"accepts-valid":{"pass":0,"warn":0,"fail":1}},"failed":true}}`,
			`line 2: summary: accepts-valid counts 1 failed cases, the report's lines hold 0: the report was edited or cut`},
		{`{"check":"rejects-malformed","case":"not-json","verdict":"fail","want":"4xx","request":{"url":"http://127.0.0.1:1/","body":"x"}}` + "\n" + `{"summary":{"checks":{"rejects-malformed":{"fail":0}}}}`,
			`line 2: summary: rejects-malformed counts 0 failed cases, the report's lines hold 1: the report was edited or cut`},
	} {
		_, err := ReadFailed(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestReadFailedBoundsTheCases: a run reports each case once, and has
// fewer than MaxRerunCases cases to send alone; an edited report that
// names one case twice, or holds more cases with a call, would have the
// rerun send what no run sent (the same call again and again, a million
// calls). Refused with the line; the load documents of effects, which a
// rerun never sends alone, are not counted.
func TestReadFailedBoundsTheCases(t *testing.T) {
	t.Parallel()
	line := func(name string) string {
		return `{"check":"rejects-malformed","case":"` + name + `","verdict":"fail","want":"4xx","request":{"url":"http://127.0.0.1:1/","body":""}}` + "\n"
	}
	_, err := ReadFailed(strings.NewReader(line("a") + line("b") + line("a")))
	if err == nil || err.Error() != `line 3: rejects-malformed a is on line 1 already: a run reports each case once` {
		t.Errorf("a case twice: %v", err)
	}
	var many strings.Builder
	for i := range MaxRerunCases + 1 {
		many.WriteString(line(fmt.Sprint("c", i)))
	}
	_, err = ReadFailed(strings.NewReader(many.String()))
	if err == nil || err.Error() != fmt.Sprintf("line %d: more than %d failed cases to send again: a run has fewer", MaxRerunCases+1, MaxRerunCases) {
		t.Errorf("too many cases: %v", err)
	}
	var load strings.Builder
	for i := range MaxRerunCases + 1 {
		fmt.Fprintf(&load, `{"check":"effects","case":"under-load/%d-of-2000-documents","verdict":"fail","effects":{"kind":"receipt","code":"C%d","load":true,"calls":[{"copies":1,"body":"{}","bodyEncoding":"utf8"}]}}`+"\n", i, i)
	}
	if got, err := ReadFailed(strings.NewReader(load.String())); err != nil || len(got) != MaxRerunCases+1 {
		t.Errorf("load documents: %d cases, %v", len(got), err)
	}
}

func FuzzReadFailed(f *testing.F) {
	target, _ := url.Parse("http://127.0.0.1:9/")
	rep := &Reporter{Target: target}
	f.Add(reported(f, rep, Result{Case: &Case{Check: rejectsMalformed, Name: "not-json", Body: []byte("x")}, Verdict: Fail}))
	f.Add([]byte(`{"summary":{}}`))
	f.Add([]byte("{\"check\":\"a\",\"case\":\"b\",\"verdict\":\"fail\"}\n\n{"))
	f.Add([]byte("{\"check\":\"a\",\"case\":\"b\",\"verdict\":\"fail\",\"request\":{\"body\":\"\xff\"}}\nx"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cases, err := ReadFailed(bytes.NewReader(b))
		var le *ReportLineError
		if err != nil && !errors.As(err, &le) && !errors.Is(err, errNotReport) {
			t.Errorf("error of no known kind: %v", err)
		}
		// A place is in the report: its line, and a column within it.
		if le != nil {
			lines := bytes.Split(b, []byte("\n"))
			switch {
			case le.Line < 1 || le.Line > len(lines):
				t.Errorf("line %d of a report of %d lines: %v", le.Line, len(lines), err)
			case le.Column < 0 || le.Column > len(lines[le.Line-1])+1:
				t.Errorf("column %d of a line of %d bytes: %v", le.Column, len(lines[le.Line-1]), err)
			}
		}
		for _, c := range cases {
			if c.Check == "" || c.Name == "" {
				t.Errorf("a case without check or name: %+v", c)
			}
		}
	})
}

// switchable is a receiver that verifies signatures, keeps requestIds and
// behaves as broken or fixed: broken, it accepts what it cannot read and
// refuses a requestId it has seen (409).
type switchable struct {
	t      *testing.T
	signer *sign.Signer
	now    func() time.Time

	mu     sync.Mutex
	fixed  bool
	seen   map[string]bool
	ids    []string
	sigBad int
}

func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Header.Get("Webhook-Signature") != "" && !validSignature(s.signer, r.Header, body, s.now()) {
		s.sigBad++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	start, end := reqid.Find(body)
	if start < 0 {
		if s.fixed {
			w.WriteHeader(http.StatusBadRequest)
		}
		return
	}
	id := string(body[start:end])
	s.ids = append(s.ids, id)
	if s.seen[id] && !s.fixed {
		w.WriteHeader(http.StatusConflict)
	}
	s.seen[id] = true
}

func TestRerun(t *testing.T) {
	t.Parallel()
	signer := testSigner(t)
	ran := time.Unix(1_800_000_000, 0)
	later := ran.Add(time.Hour) // every saved signature is stale by now
	rcv := &switchable{t: t, signer: signer, now: func() time.Time { return later }, seen: map[string]bool{}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/hook")
	rep := &Reporter{Target: target, Signer: signer, Now: func() time.Time { return ran }}
	body := receiptCall(t, "11111111-1111-4111-8111-111111111111")
	var in bytes.Buffer
	for _, res := range []Result{
		{Case: &Case{Check: rejectsMalformed, Name: "not-json", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte("not json")}, Verdict: Fail, Status: 200},
		{Case: &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/concurrent-x8", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body, Copies: 8, AtOnce: true,
			RequestID: "11111111-1111-4111-8111-111111111111"}, Verdict: Fail, Status: 409},
		{Case: &Case{Check: Latency, Name: "p99"}, Verdict: Fail},
	} {
		in.Write(reported(t, rep, res))
	}
	cases, err := ReadFailed(bytes.NewReader(in.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(0)
	run := func() []RerunResult {
		var out []RerunResult
		seed++
		cfg := RerunConfig{Client: srv.Client(), Target: target, Signer: signer, Now: func() time.Time { return later }, IDs: reqid.NewIDs(seed),
			Again: "whsim check --url " + srv.URL + "/hook --checks "}
		if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	outcomes := func(rs []RerunResult) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.Outcome+" "+r.Reason)
		}
		return strings.Join(s, "; ")
	}
	broken := run()
	for _, r := range broken[:2] {
		// A JUnit case's time: every rerun case carried 0.
		if r.Latency <= 0 {
			t.Errorf("%s %s: latency %v, want the delivery's", r.Case.Check, r.Case.Name, r.Latency)
		}
	}
	if got := outcomes(broken); !strings.HasPrefix(got, "still-failing got 200, want 4xx; still-failing delivery ") ||
		!strings.Contains(got, "got 409, want 2xx; not-rerun judged over a whole run") {
		t.Errorf("broken: %s", got)
	}
	rcv.mu.Lock()
	rcv.fixed = true
	rcv.mu.Unlock()
	if got := outcomes(run()); got != "fixed got 400; fixed got 200; not-rerun judged over a whole run, not one call: run whsim check --url "+srv.URL+"/hook --checks latency" {
		t.Errorf("fixed: %s", got)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.sigBad != 0 {
		t.Errorf("%d calls had a stale or wrong signature: a rerun signs afresh", rcv.sigBad)
	}
	// Each rerun of the burst is one fresh requestId, shared by its copies.
	counts := map[string]int{}
	for _, id := range rcv.ids {
		counts[id]++
	}
	if len(counts) != 2 || counts["11111111-1111-4111-8111-111111111111"] != 0 {
		t.Errorf("requestIds %v, want two fresh ones, 8 copies each", counts)
	}
	for id, n := range counts {
		if n != 8 {
			t.Errorf("requestId %s sent %d times, want 8", id, n)
		}
	}

	if err := Rerun(context.Background(), RerunConfig{Client: srv.Client(), Target: target}, cases, func(RerunResult) {}); err == nil || !strings.Contains(err.Error(), "--secret") {
		t.Errorf("signed cases without a signer: %v", err)
	}
}

// TestSavedCases: --save-cases writes a case as capture records, one per
// delivery, with the headers as sent; its command replays the file.
func TestSavedCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	rep := &Reporter{Out: &sink{}, Target: target, SaveDir: dir, Header: http.Header{"Authorization": {"Bearer s3cret"}},
		Signer: testSigner(t), Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
	c := &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/serial-x4", Query: "businessType=CREATE_RECEIVABLE_DOC",
		Body: receiptCall(t, "22222222-2222-4222-8222-222222222222"), RequestID: "22222222-2222-4222-8222-222222222222", Copies: 4}
	rep.Result(Result{Case: c, Verdict: Fail, Status: 409})
	if err := rep.Finish(&Summary{Checks: map[string]*Tally{}}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "duplicates", "CREATE_RECEIVABLE_DOC--serial-x4.ndjson")
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 (it holds credentials, as a capture does)", fi.Mode().Perm())
	}
	r := capture.NewReader(f)
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		b, _ := rec.RequestBody()
		if rec.Method != "POST" || rec.Path != "/hook" || rec.Query != c.Query || string(b) != string(c.Body) ||
			rec.Headers.Get("Authorization") != "Bearer s3cret" || rec.Headers.Get("Webhook-Id") != "22222222-2222-4222-8222-222222222222" ||
			!validSignature(rep.Signer, rec.Headers, b, rep.Now()) {
			t.Errorf("record %+v", rec)
		}
	}
	if n != 4 {
		t.Errorf("%d records, want one per delivery (4)", n)
	}
	results, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil || !bytes.Contains(results, []byte(`"reproduce":"whsim replay '`+name+`' --url 'http://127.0.0.1:9/hook' --sign standard --secret \"$WHSIM_REPLAY_SECRET\""`)) ||
		bytes.Contains(results, []byte("s3cret")) {
		t.Errorf("results %s (%v)", results, err)
	}
}

// A signed case too large to print inline names CASE_FILE for its
// records; the run's -H credentials come from their variables, as in the
// inline command and the curl of a large unsigned body, and as the header
// over the commands tells the user to set them. It used to leave -H out,
// so a CASE_FILE written from the report's masked request sent "Bearer
// ****" and met a 401 rather than the failure.
func TestLargeReplayCommandGivesCredentials(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	rep := &Reporter{Target: target, Header: http.Header{"Authorization": {"Bearer s3cret"}}, Signer: testSigner(t)}
	big := []byte(`{"requestId":"r","pad":"` + strings.Repeat("x", maxInlineBody) + `"}`)
	c := &Case{Check: "accepts-valid", Name: "CREATE_PURCHASE_ORDER_INVOICE/large-300-lines", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Body: big}
	cc := &CaseReport{Result: Result{Case: c}}
	cc.sent = rep.sentRequest(c)
	cmd := rep.reproduce(cc)
	want := `whsim replay CASE_FILE --url 'http://127.0.0.1:9/hook' -H "Authorization: $AUTHORIZATION" --sign standard --secret "$WHSIM_REPLAY_SECRET"  # CASE_FILE: the `
	if !strings.HasPrefix(cmd, want) {
		t.Errorf("command %s\nwant it to start %s", cmd, want)
	}
	if strings.Contains(cmd, "s3cret") {
		t.Errorf("command %s holds a credential", cmd)
	}
}

// TestInlineReplayCommand: without a saved file, a signed case's command
// pipes its record, credentials masked, into replay, concurrently for a
// burst; -H and --url give them back from their variables.
func TestInlineReplayCommand(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://u:pw@127.0.0.1:9/hook")
	rep := &Reporter{Target: target, Header: http.Header{"Authorization": {"Bearer s3cret"}}, Signer: testSigner(t)}
	c := &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/concurrent-x8", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte(`{"requestId":"it's"}`), Copies: 8, AtOnce: true}
	cc := &CaseReport{Result: Result{Case: c}}
	cc.sent = rep.sentRequest(c)
	cmd := rep.reproduce(cc)
	for _, want := range []string{"rec='{\"capture\":1,", `for i in $(seq 8); do printf '%s\n' "$rec"; done | whsim replay - --url 'http://u:'"$URL_PASSWORD"'@127.0.0.1:9/hook' --concurrency 8 -H "Authorization: $AUTHORIZATION" --sign standard --secret "$WHSIM_REPLAY_SECRET"`} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %s\nwant %s", cmd, want)
		}
	}
	if strings.Contains(cmd, "s3cret") || strings.Contains(cmd, ":pw@") {
		t.Errorf("command %s holds a credential", cmd)
	}
}

// A rerun against a receiver that is not there says so once (exit 2 in the
// CLI), as check does, rather than call every case still failing; once one
// case got an answer, a refused call later is that case's failure.
func TestRerunUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	live, _ := url.Parse(srv.URL + "/hook")
	// Port 1: nothing listens there (a closed test server's port may be
	// another parallel test's by the time it is called).
	gone, _ := url.Parse("http://127.0.0.1:1/hook")
	cases := []Failed{
		{Check: Latency, Name: "p99"}, // not rerun: sends nothing
		{Check: rejectsMalformed, Name: "not-json", Want: want4xx, Query: "businessType=E", Body: []byte("x")},
		{Check: rejectsMalformed, Name: "empty", Want: want4xx, Query: "businessType=E"},
	}
	var out []RerunResult
	err := Rerun(context.Background(), RerunConfig{Client: srv.Client(), Target: gone}, cases, func(r RerunResult) { out = append(out, r) })
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Kind != attempt.KindRefused || len(out) != 1 {
		t.Errorf("dead receiver: err %v, %d results; want cannot reach: connection refused after the one not rerun", err, len(out))
	}
	out = nil
	if err := Rerun(context.Background(), RerunConfig{Client: srv.Client(), Target: live}, cases, func(r RerunResult) { out = append(out, r) }); err != nil || len(out) != 3 {
		t.Errorf("live receiver: err %v, %d results; want 3 verdicts", err, len(out))
	}
	srv.Close()
}

// TestRerunNewRequestIDs: a case sent under new requestIds is read back
// and sent again so, each copy under a requestId of its own; its printed
// command replays with --new-request-id.
func TestRerunNewRequestIDs(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ids := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		ids[reqid.Read(b)]++
		mu.Unlock()
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/hook")
	rep := &Reporter{Target: target}
	body := receiptCall(t, "11111111-1111-4111-8111-111111111111")
	res := Result{Case: &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/new-request-id-serial-x4", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body,
		Copies: 4, NewRequestIDs: true, RequestID: "11111111-1111-4111-8111-111111111111"}, Verdict: Fail, Status: 409}
	line := reported(t, rep, res)
	if !bytes.Contains(line, []byte(`"newRequestIds":true`)) || !bytes.Contains(line, []byte(`--new-request-id`)) {
		t.Errorf("record %s: want newRequestIds and a replay with --new-request-id", line)
	}
	cases, err := ReadFailed(bytes.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	if err := Rerun(context.Background(), RerunConfig{Client: srv.Client(), Target: target}, cases, func(RerunResult) {}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 4 || ids["11111111-1111-4111-8111-111111111111"] != 1 {
		t.Errorf("requestIds %v, want the case's and 3 others, once each", ids)
	}
}

// The JSON record's request URL masks what every printed URL masks: a
// password and the values of credential query parameters.
func TestRecordMasksTheURL(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://u:pw-s3cret@127.0.0.1:9/hook?token=t0k-s3cret&tenant=7")
	rep := &Reporter{Target: target}
	res := Result{Case: &Case{Check: acceptsValid, Name: "x", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: receiptCall(t, "22222222-2222-4222-8222-222222222222")},
		Verdict: Fail, Status: 500}
	line := reported(t, rep, res)
	var rec CaseRecord
	if err := json.Unmarshal(line, &rec); err != nil || rec.Request == nil {
		t.Fatalf("record %s: %v", line, err)
	}
	if want := "http://u:xxxxx@127.0.0.1:9/hook?token=****&tenant=7&businessType=CREATE_RECEIVABLE_DOC"; rec.Request.URL != want {
		t.Errorf("request url %s, want %s", rec.Request.URL, want)
	}
	if bytes.Contains(line, []byte("s3cret")) {
		t.Errorf("record holds a credential: %s", line)
	}
}

// TestRerunOutOfOrderUnseenDocument: a rerun of an audit or void that was
// to reach a document the receiver never saw (before its create, or never
// created) sends it for a fresh document. The run's own create came after
// the audit, so under the run's number the receiver now holds it: the
// audit got 200 and the still-broken receiver read as fixed.
func TestRerunOutOfOrderUnseenDocument(t *testing.T) {
	srv := httptest.NewServer(newReceiver(t, defects{unknownVoid500: true}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Checks, cfg.Nonce = []string{outOfOrder}, 7
	rep := &Reporter{Target: cfg.Target, Signer: cfg.Signer, Now: time.Now}
	var in bytes.Buffer
	if _, err := Run(context.Background(), cfg, func(r Result) { in.Write(reported(t, rep, r)) }); err != nil {
		t.Fatal(err)
	}
	cases, err := ReadFailed(&in)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Fatalf("%d failed cases, want 3 (void and audit of unknown documents, audit before create)", len(cases))
	}
	for seed := uint64(1); seed <= 2; seed++ { // a second rerun too: its documents are its own again
		var out []RerunResult
		rcfg := RerunConfig{Client: cfg.Client, Target: cfg.Target, Signer: cfg.Signer, Now: time.Now, IDs: reqid.NewIDs(seed)}
		if err := Rerun(context.Background(), rcfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
			t.Fatal(err)
		}
		for _, r := range out {
			if r.Outcome != StillFailing || r.Status != http.StatusInternalServerError {
				t.Errorf("rerun %d: %s %s: %s %s, want still failing: the receiver still answers 500 to an audit or void of a document it never saw", seed, r.Case.Check, r.Case.Name, r.Outcome, r.Reason)
			}
		}
	}
}

// TestWantOfEveryCallCheck: every check that judges a case by its calls'
// answers says what a rerun of a failed case must get; only those judged
// over a whole run (load, latency) or by the probe (effects) say none.
// Without it a failed case reads NOT RERUN, "judged over a whole run",
// and its record has no "want".
func TestWantOfEveryCallCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		check string
		valid bool
		want  string
	}{
		{acceptsValid, false, want2xx},
		{rejectsMalformed, false, want4xx},
		{UnknownEvent, false, want2xxOr4xx},
		{eventVsBody, false, want4xx},
		{duplicates, false, want2xx},
		{outOfOrder, false, want2xxOr4xx},
		{signature, true, want2xx},
		{signature, false, want4xx},
		{Load, false, ""},
		{Effects, false, ""},
		{Latency, false, ""},
	} {
		if got := wantOf(tt.check, tt.valid); got != tt.want {
			t.Errorf("wantOf(%s, %v) = %q, want %q", tt.check, tt.valid, got, tt.want)
		}
	}
	for _, id := range IDs() {
		if wantOf(id, true) == "" && id != Load && id != Effects && id != Latency {
			t.Errorf("%s says no answer that fixes its failed cases", id)
		}
	}
}

// TestReproduceOutOfOrderUnseenDocument: the command printed for an
// out-of-order audit or void meant for a document the receiver never saw
// sends it as --rerun does, under a number no run sent, and says so; under
// the run's number the receiver holds the document the run created after
// it, and a pasted command would get 200 from a receiver still broken.
func TestReproduceOutOfOrderUnseenDocument(t *testing.T) {
	srv := httptest.NewServer(newReceiver(t, defects{unknownVoid500: true, ignoreSig: true}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Checks, cfg.Nonce, cfg.Signer = []string{outOfOrder}, 7, nil
	rep := &Reporter{Target: cfg.Target, Now: time.Now}
	var failed []Result
	if _, err := Run(context.Background(), cfg, func(r Result) {
		if r.Verdict == Fail {
			failed = append(failed, r)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(failed) != 3 {
		t.Fatalf("%d failed cases, want 3 (void and audit of unknown documents, audit before create)", len(failed))
	}
	for _, r := range failed {
		c := reproduced(r.Case)
		if c == r.Case || bytes.Equal(c.Body, r.Case.Body) {
			t.Errorf("%s: reproduced under the run's number", r.Case.Name)
		}
		if again := reproduced(r.Case); !bytes.Equal(again.Body, c.Body) {
			t.Errorf("%s: two reproductions of one case differ", r.Case.Name)
		}
		cc := &CaseReport{Result: r, target: rep.Target}
		cc.sent = rep.sentRequest(r.Case)
		repro := rep.reproduce(cc)
		if !strings.Contains(repro, shellcmd.Quote(string(c.Body))) || !strings.Contains(repro, "# "+renumberedNote) {
			t.Errorf("%s: the command does not send the renumbered body, saying so:\n%s", r.Case.Name, repro)
		}
		// What the command sends, the still-broken receiver still refuses.
		resp, err := http.Post(srv.URL+"?"+c.Query, "application/json", bytes.NewReader(c.Body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("%s: the reproduction got %d from a receiver that still answers 500 to a document it never saw", r.Case.Name, resp.StatusCode)
		}
	}
}

// A rerun of copies meant to arrive at once is no fix when no two of them
// were in flight together: the race was not tried (it said FIXED, as the
// run once said passed). Copies that met are judged as before.
func TestRerunCopiesNotTogetherAreNotFixed(t *testing.T) {
	t.Parallel()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer plain.Close()
	// The first two calls to reach it answer only once both are there:
	// two copies certainly in flight together.
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	meeting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		<-both
	}))
	defer meeting.Close()
	body := receiptCall(t, "11111111-1111-4111-8111-111111111111")
	for _, tt := range []struct {
		name string
		srv  *httptest.Server
		held func(i int, ended func(j int) <-chan struct{})
		want string
	}{
		{"copies held apart", plain, func(i int, ended func(j int) <-chan struct{}) {
			if i > 0 {
				<-ended(i - 1) // the scheduler's pause: an event, not a sleep
			}
		}, NotRerun},
		{"copies together", meeting, nil, Fixed},
	} {
		target, _ := url.Parse(tt.srv.URL + "/hook")
		res := Result{Case: &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/concurrent-x8", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body,
			Copies: 8, AtOnce: true, RequestID: "11111111-1111-4111-8111-111111111111"}, Verdict: Fail, Status: 500}
		cases, err := ReadFailed(bytes.NewReader(reported(t, &Reporter{Target: target}, res)))
		if err != nil {
			t.Fatal(err)
		}
		var got []RerunResult
		cfg := RerunConfig{Client: tt.srv.Client(), Target: target, copyHeld: tt.held}
		if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { got = append(got, r) }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Outcome != tt.want {
			t.Errorf("%s: %+v, want %s", tt.name, got, tt.want)
			continue
		}
		if tt.want == NotRerun && !strings.Contains(got[0].Reason, "no two of the 8 copies were in flight together") {
			t.Errorf("%s: reason %q", tt.name, got[0].Reason)
		}
	}
}

// A report's document numbers go to the user's --probe-cmd on a rerun,
// where probes paste them into SQL quotes: a number no run writes (an
// edited report's  X'; DELETE FROM documents; -------- ) is refused with
// its line before anything is sent or asked.
func TestReadFailedRefusesNumbersNoRunWrites(t *testing.T) {
	t.Parallel()
	line := func(code, invoiceCode string) string {
		return `{"check":"effects","case":"created/CREATE_PURCHASE_ORDER_INVOICE/sample","verdict":"fail","effects":{"kind":"invoice","code":` + strconv.Quote(code) +
			`,"invoiceCode":` + strconv.Quote(invoiceCode) + `,"calls":[{"event":"CREATE_PURCHASE_ORDER_INVOICE","query":"businessType=CREATE_PURCHASE_ORDER_INVOICE","copies":1,"body":"{}","bodyEncoding":"utf8"}]}}` + "\n"
	}
	tests := []struct {
		code, invoiceCode, err string
	}{
		{"CGFP-8261FQ-0463", "79620323", ""},
		{"CGFP-8261FQ-0463", "", ""},
		{"X'; DELETE FROM documents; --------", "", `line 1: effects created/CREATE_PURCHASE_ORDER_INVOICE/sample: effects: code "X'; DELETE FROM documents; --------": a run writes A-Z, 0-9 and - alone, and a rerun gives it to the probe`},
		{"CGFP-8261FQ-0463", "1 -o x", `line 1: effects created/CREATE_PURCHASE_ORDER_INVOICE/sample: effects: invoiceCode "1 -o x": a run writes A-Z, 0-9 and - alone, and a rerun gives it to the probe`},
		{"-rf", "", `line 1: effects created/CREATE_PURCHASE_ORDER_INVOICE/sample: effects: code "-rf": a run writes`},
	}
	for _, tt := range tests {
		_, err := ReadFailed(strings.NewReader(line(tt.code, tt.invoiceCode)))
		if (err == nil) != (tt.err == "") || err != nil && !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("%q, %q: %v, want %q", tt.code, tt.invoiceCode, err, tt.err)
		}
	}
}

// A rerun case's Took is its wall time (every copy, in turn), and Ended
// when it was judged, for its JUnit case: it was the last copy's latency,
// d for a serial-x4 case of four calls of d. Only a lower bound is
// asserted: a loaded machine is slower, never faster.
func TestRerunTook(t *testing.T) {
	t.Parallel()
	const d = 30 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(d) // the receiver's work
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/hook")
	body := receiptCall(t, "11111111-1111-4111-8111-111111111111")
	res := Result{Case: &Case{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/serial-x4", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body,
		Copies: 4, RequestID: "11111111-1111-4111-8111-111111111111"}, Verdict: Fail, Status: 409}
	cases, err := ReadFailed(bytes.NewReader(reported(t, &Reporter{Target: target}, res)))
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	var got []RerunResult
	if err := Rerun(context.Background(), RerunConfig{Client: srv.Client(), Target: target}, cases, func(r RerunResult) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Took < 4*d || got[0].Ended.Before(before.Add(got[0].Took)) || got[0].Ended.After(time.Now()) {
		t.Fatalf("results %+v, want one that took at least %s and ended after it", got, 4*d)
	}
}

// A report's summary says which checks its run never ran and which it
// cut short (it stopped or was interrupted): ReadReport returns them, a
// rerun says them, since "fixed" is only of the cases the run judged. A
// name that is no check is the line's error: the report is untrusted.
func TestReadReportNotRun(t *testing.T) {
	t.Parallel()
	const failed = `{"check":"accepts-valid","case":"CREATE_RECEIVABLE_DOC/sample","verdict":"pass","status":200}` + "\n"
	tests := []struct {
		summary  string
		notRun   []string
		cutShort string
		wantErr  string
	}{
		{`{"summary":{"checks":{},"failed":true,"notRun":["load","latency"]}}`, []string{"load", "latency"}, "", ""},
		{`{"summary":{"checks":{},"failed":true,"notRun":["latency"],"cutShort":"accepts-valid"}}`, []string{"latency"}, "accepts-valid", ""},
		{`{"summary":{"checks":{},"failed":true,"cutShort":"latency"}}`, nil, "latency", ""},
		{`{"summary":{"checks":{},"failed":false}}`, nil, "", ""},
		{`{"summary":{"notRun":["load","no-such\u001b[2J"]}}`, nil, "", `line 2: summary: notRun names "no-such\x1b[2J", which is no check`},
		{`{"summary":{"cutShort":"no-such"}}`, nil, "", `line 2: summary: cutShort names "no-such", which is no check`},
		// A run names each check once: a list of one name 200,000 times
		// was said whole on stderr, in JSON and the job summary (2.4 MB).
		{`{"summary":{"notRun":["load","latency","load"]}}`, nil, "", `line 2: summary: notRun names "load" twice: a run names each check once`},
		{`{"summary":{"notRun":["load"],"cutShort":"load"}}`, nil, "", `line 2: summary: "load" is both cutShort and notRun: a run that cut a check short ran it`},
		{`{"summary":{"notRun":"load"}}`, nil, "", "line 2: notRun: want a list, got a string"},
	}
	// No summary line at all: a run that did not end, or a file cut short.
	if _, end, err := ReadReport(strings.NewReader(failed)); err != nil || !end.NoSummary || !end.Untested() {
		t.Errorf("a report without a summary: %+v, %v; want NoSummary, untested", end, err)
	}
	for _, tt := range tests {
		_, end, err := ReadReport(strings.NewReader(failed + tt.summary + "\n"))
		if err == nil && end.NoSummary {
			t.Errorf("%s: read as no summary", tt.summary)
		}
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: %v, want an error with %q", tt.summary, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.summary, err)
		case !slices.Equal(end.NotRun, tt.notRun) || end.CutShort != tt.cutShort:
			t.Errorf("%s: notRun %q, cutShort %q; want %q, %q", tt.summary, end.NotRun, end.CutShort, tt.notRun, tt.cutShort)
		case end.Untested() != (len(tt.notRun) > 0 || tt.cutShort != ""):
			// A check not run, or cut short, is one a rerun proves
			// nothing of: the rerun is no pass.
			t.Errorf("%s: Untested() %v", tt.summary, end.Untested())
		}
	}
}

// TestValidSignatureCases: the names a rerun reads as signed with the
// run's secret (validSignatureCase) are those of the signature cases built
// with a valid signature, and no other.
func TestValidSignatureCases(t *testing.T) {
	t.Parallel()
	s, err := sign.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newBuilder(7, payload.Anchor(), 0).signature(s, payload.Anchor())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if got := validSignatureCase(c.Name); got != c.valid {
			t.Errorf("validSignatureCase(%q) = %v, the case is built valid %v", c.Name, got, c.valid)
		}
	}
}

// TestSignatureCaseReportedLateReadsBack: a valid signature case reported
// more than five minutes after it was signed (a slow receiver, a long
// run) is still the case signed with the run's secret: its line says so
// (resign, want 2xx), and a rerun reads it back, rather than a stale
// signature making it a case that wants 4xx.
func TestSignatureCaseReportedLateReadsBack(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	signed := payload.Anchor()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	rep := &Reporter{Target: target, Signer: s, Now: func() time.Time { return signed.Add(6 * time.Minute) }}
	body := []byte(`{"requestId":"r-1"}`)
	c := &Case{Check: signature, Name: "correct", Event: "E", Query: "businessType=E", Body: body, Header: http.Header{
		"Webhook-Id": {"w-1"}, "Webhook-Timestamp": {strconv.FormatInt(signed.Unix(), 10)},
		"Webhook-Signature": {s.Signature("w-1", signed.Unix(), body)}}}
	line := reported(t, rep, Result{Case: c, Verdict: Fail, Status: 401})
	got, err := ReadFailed(bytes.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Resign || got[0].Want != want2xx {
		t.Errorf("read back %+v, want resign and 2xx", got)
	}
}

// TestRerunMaskedCredential: a case sent again with a credential as the
// report masks it (a header's ****, the URL's password xxxxx, its user
// without a password ****, a query token's ****) and answered 4xx is NOT RERUN, never FIXED nor STILL
// FAILING: the receiver may have refused the mask. A receiver that checks
// its token answered 401 to every malformed call, and each read FIXED,
// exit 0, however it treats them with the real token. Given again, the
// credential gets the case its verdict.
func TestRerunMaskedCredential(t *testing.T) {
	t.Parallel()
	// Broken: it takes any call that carries the real token, and refuses
	// every other.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, _ := r.BasicAuth()
		if r.Header.Get("X-Api-Key") != "k1" && r.URL.Query().Get("token") != "k1" && !(user == "u" && pw == "k1") && !(user == "k1" && pw == "") {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close) // after the parallel subtests
	malformed := Failed{Check: rejectsMalformed, Name: "not-json", Want: want4xx, Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte("x")}
	at := func(s string) *url.URL {
		u, err := url.Parse(strings.Replace(s, "SRV", strings.TrimPrefix(srv.URL, "http://"), 1))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	tests := []struct {
		name    string
		target  string
		header  http.Header // the case's, as the report has it
		given   http.Header // -H
		outcome string
		masked  string
	}{
		{"header masked", "http://SRV/hook", http.Header{"X-Api-Key": {"****"}}, nil, NotRerun, "X-Api-Key"},
		{"header given again", "http://SRV/hook", http.Header{"X-Api-Key": {"****"}}, http.Header{"X-Api-Key": {"k1"}}, StillFailing, ""},
		{"query token masked", "http://SRV/hook?token=****", nil, nil, NotRerun, "the query's token"},
		{"query token given again", "http://SRV/hook?token=k1", nil, nil, StillFailing, ""},
		{"password masked", "http://u:xxxxx@SRV/hook", nil, nil, NotRerun, "the URL's password"},
		{"password given again", "http://u:k1@SRV/hook", nil, nil, StillFailing, ""},
		// A token as the URL's user, masked **** (sent as Basic auth "****:").
		{"user masked", "http://****@SRV/hook", nil, nil, NotRerun, "the URL's user"},
		{"user masked, escaped as url.URL prints it", "http://%2A%2A%2A%2A@SRV/hook", nil, nil, NotRerun, "the URL's user"},
		{"user given again", "http://k1@SRV/hook", nil, nil, StillFailing, ""},
		// No credential at all: the 401 is the receiver's answer to the call.
		{"none", "http://SRV/hook", http.Header{"X-Tenant": {"****"}}, nil, Fixed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := malformed
			c.Header = tt.header
			var out []RerunResult
			cfg := RerunConfig{Client: srv.Client(), Target: at(tt.target), Header: tt.given}
			if err := Rerun(context.Background(), cfg, []Failed{c}, func(r RerunResult) { out = append(out, r) }); err != nil || len(out) != 1 {
				t.Fatalf("err %v, %d results", err, len(out))
			}
			if out[0].Outcome != tt.outcome {
				t.Errorf("%s: %s, want %s", out[0].Reason, out[0].Outcome, tt.outcome)
			}
			if tt.masked != "" && !strings.Contains(out[0].Reason, "got 401 to a call carrying "+tt.masked+" as the report masks it") {
				t.Errorf("reason %q names no %s", out[0].Reason, tt.masked)
			}
		})
	}
}

// An effects document whose calls carry a masked credential and get a
// 4xx is NOT RERUN too: "the call itself was not accepted" read STILL
// FAILING of a receiver that refused the mask.
func TestRerunEffectsMaskedCredential(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k1" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(srv.Close)
	body := `{"requestId":"8f1c2a34-0000-4000-8000-000000000001","businessType":4000,"data":{"code":"CGFP00000001"}}`
	for _, tt := range []struct {
		name    string
		given   http.Header
		outcome string
	}{
		{"masked", nil, NotRerun},
		{"given again", http.Header{"X-Api-Key": {"k1"}}, Fixed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cases := []Failed{{Check: Effects, Name: "invoice/create", Effects: &EffectsRecord{
				Kind: "invoice", Code: "CGFP00000001", Event: "CREATE_PURCHASE_ORDER_INVOICE", RequestID: "8f1c2a34-0000-4000-8000-000000000001", WantLines: -1,
				Calls: []EffectsCall{{Event: "CREATE_PURCHASE_ORDER_INVOICE", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Headers: http.Header{"X-Api-Key": {"****"}}, Body: body, BodyEncoding: "utf8", Copies: 1}},
			}}}
			var out []RerunResult
			cfg := RerunConfig{Client: srv.Client(), Target: mustURL(t, srv.URL+"/hook"), Header: tt.given, Now: time.Now, Probe: heldProbe{}, IDs: reqid.NewIDs(1)}
			if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || out[0].Outcome != tt.outcome {
				t.Fatalf("%+v, want %s", out, tt.outcome)
			}
			if tt.outcome == NotRerun && !strings.Contains(out[0].Reason, "got 401 to a call carrying X-Api-Key as the report masks it") {
				t.Errorf("reason %q names no masked X-Api-Key", out[0].Reason)
			}
		})
	}
}

// A case the report keeps no call of gets a command that runs its check
// again, named by the report: only a check of this whsim's is named in
// it. "load; touch pwned", pasted, ran touch.
func TestRerunCommandNamesOnlyChecks(t *testing.T) {
	t.Parallel()
	// Built here: ReadFailed refuses a report with a case no check has
	// (TestReadFailedRefusesCasesNoCheckHas).
	cases := []Failed{{Check: "load; touch pwned", Name: "300-calls"}, {Check: Latency, Name: "p99"}}
	var out []RerunResult
	cfg := RerunConfig{Target: mustURL(t, "http://127.0.0.1:1/hook"), Again: "whsim check --url 'http://127.0.0.1:1/hook' --checks "}
	if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"the report keeps no call of it, and no check of this whsim has its name: run whsim check --url 'http://127.0.0.1:1/hook'",
		"judged over a whole run, not one call: run whsim check --url 'http://127.0.0.1:1/hook' --checks latency",
	}
	if len(out) != len(want) {
		t.Fatalf("%d results, want %d", len(out), len(want))
	}
	for i, r := range out {
		if r.Outcome != NotRerun || r.Reason != want[i] {
			t.Errorf("%s %s: %s %q, want not-rerun %q", r.Case.Check, r.Case.Name, r.Outcome, r.Reason, want[i])
		}
	}
}

// A case line's request, and an effects document's call, without a body
// string is no run's (a run writes "" for an empty body): read as an empty
// body, it went out empty, and a malformed-body case's 4xx to it read
// FIXED. Refused with its line, as the other edits are.
func TestReadFailedRefusesARequestWithoutBody(t *testing.T) {
	t.Parallel()
	const req = `{"check":"rejects-malformed","case":"truncated-json","verdict":"fail","want":"4xx","request":{"method":"POST","url":"http://127.0.0.1:1/hook?businessType=CREATE_RECEIVABLE_DOC","query":"businessType=CREATE_RECEIVABLE_DOC","headers":{}%s}}` + "\n"
	const eff = `{"check":"effects","case":"created/CREATE_PURCHASE_ORDER_INVOICE/sample","verdict":"fail","effects":{"kind":"invoice","code":"CGFP-8261FQ-0463","calls":[%s]}}` + "\n"
	tests := []struct {
		name, line, err string
	}{
		{"request with body", fmt.Sprintf(req, `,"body":"{\"a\":","bodyEncoding":"utf8"`), ""},
		{"request with an empty body", fmt.Sprintf(req, `,"body":"","bodyEncoding":"utf8"`), ""},
		{"request with the key in another case", fmt.Sprintf(req, `,"Body":"{}"`), ""},
		{"request without body", fmt.Sprintf(req, ``), `line 1: request: no "body" string`},
		{"request with a null body", fmt.Sprintf(req, `,"body":null`), `line 1: request: no "body" string`},
		{"call with body", fmt.Sprintf(eff, `{"event":"CREATE_PURCHASE_ORDER_INVOICE","query":"businessType=CREATE_PURCHASE_ORDER_INVOICE","copies":1,"body":"{}","bodyEncoding":"utf8"}`), ""},
		{"call without body", fmt.Sprintf(eff, `{"copies":1,"body":"{}"},{"copies":1}`), `line 1: effects.calls[1]: no "body" string`},
		{"null call", fmt.Sprintf(eff, `null`), `line 1: effects.calls[0]: no "body" string`},
	}
	for _, tt := range tests {
		_, err := ReadFailed(strings.NewReader(tt.line))
		if (err == nil) != (tt.err == "") || err != nil && !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

// A case sent again in several deliveries rests on the first that is
// still wrong: its reason and its status are that delivery's, not a
// later one's.
func TestRerunRestsOnTheFirstWrongDelivery(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	statuses := []int{http.StatusOK, http.StatusConflict, http.StatusInternalServerError, http.StatusOK}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		s := statuses[0]
		statuses = statuses[1:]
		mu.Unlock()
		w.WriteHeader(s)
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/hook")
	c := Failed{Check: duplicates, Name: "CREATE_RECEIVABLE_DOC/serial-x4", Want: want2xx, Query: "businessType=CREATE_RECEIVABLE_DOC",
		Body: receiptCall(t, "11111111-1111-4111-8111-111111111111"), Copies: 4}
	var out []RerunResult
	if err := Rerun(context.Background(), RerunConfig{Client: srv.Client(), Target: target}, []Failed{c}, func(r RerunResult) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Outcome != StillFailing || out[0].Status != http.StatusConflict || !strings.HasPrefix(out[0].Reason, "delivery 2 of 4 got 409") {
		t.Errorf("rerun %+v, want still failing on delivery 2's 409", out)
	}
}

// wants: the answer each expectation a report gives a case takes.
func TestWants(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		want     string
		statuses map[int]bool
	}{
		{want2xx, map[int]bool{200: true, 204: true, 302: false, 404: false, 500: false}},
		{want4xx, map[int]bool{200: false, 302: false, 400: true, 499: true, 500: false}},
		{want2xxOr4xx, map[int]bool{200: true, 302: false, 404: true, 500: false, 0: false}},
		{"", map[int]bool{200: false, 404: false}},
	} {
		for status, ok := range tt.statuses {
			if got := wants(tt.want, status); got != ok {
				t.Errorf("wants(%q, %d) = %v, want %v", tt.want, status, got, ok)
			}
		}
	}
}

// RerunSummary counts each outcome as itself, and passes only a rerun
// that fixed every case sent, completed, and followed a run that ran
// every check.
func TestRerunSummary(t *testing.T) {
	t.Parallel()
	var s RerunSummary
	for _, o := range []string{Fixed, Fixed, StillFailing, NotRerun} {
		s.Add(RerunResult{Outcome: o})
	}
	if s.Fixed != 2 || s.StillFailing != 1 || s.NotRerun != 1 {
		t.Errorf("counted %+v, want 2 fixed, 1 still failing, 1 not rerun", s)
	}
	for _, tt := range []struct {
		name             string
		s                RerunSummary
		allFixed, passed bool
	}{
		{"all fixed", RerunSummary{Fixed: 2}, true, true},
		{"one still failing", RerunSummary{Fixed: 2, StillFailing: 1}, false, false},
		{"one not rerun", RerunSummary{Fixed: 2, NotRerun: 1}, false, false},
		{"interrupted", RerunSummary{Fixed: 2, Interrupted: true}, false, false},
		{"unfinished", RerunSummary{Fixed: 2, Unfinished: "probe failed"}, true, false},
		{"after a run cut short", RerunSummary{Fixed: 2, ReportEnd: ReportEnd{CutShort: Load}}, true, false},
	} {
		if tt.s.AllFixed() != tt.allFixed || tt.s.Passed() != tt.passed {
			t.Errorf("%s: AllFixed %v, Passed %v; want %v, %v", tt.name, tt.s.AllFixed(), tt.s.Passed(), tt.allFixed, tt.passed)
		}
	}
}

// A signature case sent again without re-signing (its signature is the
// case: stale, of another secret) goes with the very bytes it was signed
// over: a fresh requestId spliced in would make every such signature
// wrong for another reason, and a receiver that checks only that pass.
func TestRerunSignatureCaseKeepsItsBytes(t *testing.T) {
	t.Parallel()
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/hook")
	body := receiptCall(t, "11111111-1111-4111-8111-111111111111")
	c := Failed{Check: signature, Name: "wrong-secret", Want: want4xx, Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body,
		Header: http.Header{"Webhook-Id": {"msg_1"}, "Webhook-Timestamp": {"1800000000"}, "Webhook-Signature": {"v1,c2lnbmF0dXJl"}}}
	cfg := RerunConfig{Client: srv.Client(), Target: target, IDs: reqid.NewIDs(1)}
	if err := Rerun(context.Background(), cfg, []Failed{c}, func(RerunResult) {}); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, body) {
		t.Errorf("sent %s, want the bytes signed %s", b, body)
	}
}

// TestReadFailedRefusesACallMovedToAnotherCheck: each check's calls are of
// one kind, valid (accepts-valid, duplicates) or not (rejects-malformed,
// event-contradicts-body, which a run keeps only when validate fails
// them); a case edited into a check of the other kind, its want with it,
// read FIXED by a receiver that still gets it wrong: a valid call moved
// into rejects-malformed, by one that refuses everything. Refused, exit 2;
// a check's own calls read back.
func TestReadFailedRefusesACallMovedToAnotherCheck(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	rep := &Reporter{Target: target}
	valid := receiptCall(t, "33333333-3333-4333-8333-333333333333")
	for _, tt := range []struct {
		c    *Case
		want string // "" reads back
	}{
		{&Case{Check: rejectsMalformed, Name: "CREATE_RECEIVABLE_DOC/described", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: valid},
			"rejects-malformed CREATE_RECEIVABLE_DOC/described: its call is one the ERP sends, and every call of rejects-malformed is one a receiver must refuse"},
		{&Case{Check: eventVsBody, Name: "x", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: valid},
			"event-contradicts-body x: its call is one the ERP sends, and every call of event-contradicts-body is one a receiver must refuse"},
		{&Case{Check: acceptsValid, Name: "not-json", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte("this is not JSON\n")},
			"accepts-valid not-json: its body is no call the ERP sends (json-syntax"},
		// A check's own: the receipt under an invoice event, the body
		// without a query event, a valid call, are read back.
		{&Case{Check: eventVsBody, Name: "receipt-body-under-invoice-event", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Body: valid}, ""},
		{&Case{Check: rejectsMalformed, Name: "no-businessType-query", Query: "", Body: valid}, ""},
		{&Case{Check: rejectsMalformed, Name: "not-json", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: []byte("this is not JSON\n")}, ""},
		{&Case{Check: acceptsValid, Name: "CREATE_RECEIVABLE_DOC/described", Query: "businessType=CREATE_RECEIVABLE_DOC", Body: valid}, ""},
	} {
		_, err := ReadFailed(bytes.NewReader(reported(t, rep, Result{Case: tt.c, Verdict: Fail, Status: 200})))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v, want it read back", tt.c.Check, tt.c.Name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s: error %v, want %q", tt.c.Check, tt.c.Name, err, tt.want)
		}
	}
}

// A request's query is the end of its url, as a run writes them; a line
// where it is not was edited, and is refused with the query's place.
func TestQueryEndsURL(t *testing.T) {
	for _, tc := range []struct {
		url, query string
		ok         bool
	}{
		{"http://h/hook?businessType=A", "businessType=A", true},
		{"http://h/hook?tenant=a&businessType=A", "businessType=A", true},
		{"http://h/hook", "", true},
		{"", "businessType=A", true}, // saved cases name no url: nothing to compare
		{"http://h/hook?businessType=A", "businessType=B", false},
		{"http://h/hook", "businessType=A", false},
		{"http://h/hook?xbusinessType=A", "businessType=A", false},
		{"http://h/hook?businessType=A&x=1", "businessType=A", false},
	} {
		if err := queryEndsURL(tc.url, tc.query); (err == nil) != tc.ok {
			t.Errorf("url %q query %q: %v, want ok %v", tc.url, tc.query, err, tc.ok)
		}
	}
	for _, tc := range []struct {
		line string
		path []string
		want int
	}{
		{`{"request":{"url":"u","query":"q"}}`, []string{"request", "query"}, 30},
		{`{"query":"top","request":{"Query": "q"}}`, []string{"request", "query"}, 35},
		{`{"request":{"url":"u"}}`, []string{"request", "query"}, -1},
		{`{"request":"x"}`, []string{"request", "query"}, -1},
	} {
		if got := valueOffset([]byte(tc.line), tc.path...); got != tc.want {
			t.Errorf("%s %v: offset %d, want %d", tc.line, tc.path, got, tc.want)
		}
	}
}
