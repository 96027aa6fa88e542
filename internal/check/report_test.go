package check

import (
	"bytes"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/whsim/whsim/internal/shellcmd"
)

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `"double" $HOME \n`, "收款单 'x'\n{}"} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellcmd.Quote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("shellcmd.Quote(%q) reads back as %q", s, out)
		}
	}
}

func TestCaseFile(t *testing.T) {
	tests := []struct{ check, name, want string }{
		{acceptsValid, "CREATE_RECEIVABLE_DOC/nulls", "accepts-valid/CREATE_RECEIVABLE_DOC--nulls.ndjson"},
		{rejectsMalformed, "type/data.收款单.汇率/string-for-number", "rejects-malformed/type--data.收款单.汇率--string-for-number.ndjson"},
		{signature, `a\b:c d`, "signature/a-b-c_d.ndjson"},
	}
	for _, tt := range tests {
		if got := caseFile(&Case{Check: tt.check, Name: tt.name}); got != tt.want {
			t.Errorf("caseFile(%s, %s) = %s, want %s", tt.check, tt.name, got, tt.want)
		}
	}
}

// TestReproduce runs the commands a failure prints: they send the same
// request, as many times as the case did, the user's credential from its
// variable.
func TestReproduce(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	type got struct {
		query, sig, auth, tenant string
		body                     []byte
	}
	var mu sync.Mutex
	var calls []got
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, got{r.URL.RawQuery, r.Header.Get("Webhook-Signature"), r.Header.Get("Authorization"), r.Header.Get("X-Tenant"), b})
		mu.Unlock()
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/hook?tenant=7")
	rep := &Reporter{Target: target, Header: http.Header{"Authorization": {"Bearer s3cret"}, "X-Tenant": {"it's"}}}
	body := []byte(`{"requestId":"r-1","data":{"收款单":{"备注":"it's"}}}`)
	big := bytes.Repeat([]byte("x"), maxInlineBody+1)
	tests := []struct {
		c     Case
		calls int
		hint  bool
	}{
		{Case{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body}, 1, false},
		{Case{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body, Header: http.Header{"Webhook-Signature": {"v1,abc"}}, Copies: 3}, 3, false},
		{Case{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body, Copies: 4, AtOnce: true}, 4, false},
		{Case{Body: big}, 0, true},
	}
	for _, tt := range tests {
		mu.Lock()
		calls = nil
		mu.Unlock()
		cmd := rep.reproduce(&CaseReport{Result: Result{Case: &tt.c}})
		if strings.Contains(cmd, "s3cret") {
			t.Errorf("%s: the credential is printed", cmd)
		}
		if strings.Contains(cmd, "--save-cases") != tt.hint {
			t.Errorf("%s: hint %v, want %v", cmd, !tt.hint, tt.hint)
		}
		if tt.hint {
			continue
		}
		sh := exec.Command("sh", "-c", cmd+" >/dev/null")
		sh.Env = append(os.Environ(), "AUTHORIZATION=Bearer s3cret")
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		mu.Lock()
		seen := calls
		mu.Unlock()
		if len(seen) != tt.calls {
			t.Fatalf("%s: %d calls, want %d", cmd, len(seen), tt.calls)
		}
		for _, c := range seen {
			if !bytes.Equal(c.body, tt.c.Body) || c.query != "tenant=7&"+tt.c.Query || c.auth != "Bearer s3cret" || c.tenant != "it's" || c.sig != tt.c.Header.Get("Webhook-Signature") {
				t.Errorf("%s: got %+v", cmd, c)
			}
		}
	}
}

// A run against a receiver on a private CA (--cacert) or one whose
// certificate is not checked (--insecure) reproduces its failures with
// the same TLS settings: a curl reproduction without them fails on the
// certificate before it reaches the receiver, and so would replay.
func TestReproduceCarriesTheRunsTLS(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	calls := make(chan string, 4)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls <- r.URL.RawQuery
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "my ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(srv.URL + "/hook")
	body := []byte(`{"requestId":"r-1"}`)
	for _, tt := range []struct {
		tls    []string
		replay string // the replay command's flags
	}{
		{[]string{"--cacert", ca}, " --cacert " + shellcmd.Quote(ca)},
		{[]string{"-k"}, " --insecure"},
	} {
		rep := &Reporter{Target: target, CurlTLS: tt.tls}
		cmd := rep.reproduce(&CaseReport{Result: Result{Case: &Case{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body}}})
		if out, err := exec.Command("sh", "-c", cmd+" >/dev/null").CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		if q := <-calls; q != "businessType=CREATE_RECEIVABLE_DOC" {
			t.Errorf("%s: the receiver got query %q", cmd, q)
		}
		replay := rep.reproduce(&CaseReport{Result: Result{Case: &Case{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body}}, File: "cases/x.ndjson"})
		if !strings.Contains(replay, tt.replay) {
			t.Errorf("%s: want %q in it", replay, tt.replay)
		}
	}
}

// The answer a case's JSON line carries (and the HTML report, which shows
// that line) reads as its reason does in text, JUnit and the job summary
// (termsafe.Excerpt): a body cut where the run stopped reading ends in
// "…", so that the start of an answer does not read as the whole of it,
// and controls at its ends are escaped, not trimmed away.
func TestRecordAnswerIsTheReasonsExcerpt(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		cut  bool
		want string
	}{
		{"whole", `{"error":"bad"}` + "\n", false, `{"error":"bad"}`},
		{"cut", `{"error":"请求体格式错误`, true, `{"error":"请求体格式错误…`},
		{"controls at the ends", "\vbad\f", false, `\x0bbad\x0c`},
		{"only blanks", " \r\n", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &CaseReport{Result: Result{Case: &Case{Check: acceptsValid, Name: "x"}, Verdict: Fail, Status: 400,
				Answer: &Reply{Status: "400 Bad Request", Body: []byte(tc.body), Cut: tc.cut}}}
			a := c.Record().Answer
			if a == nil {
				t.Fatal("no answer in the record of a failed case")
			}
			if a.Body != tc.want || a.Status != "400 Bad Request" {
				t.Errorf("answer %+v, want body %q", *a, tc.want)
			}
		})
	}
}
