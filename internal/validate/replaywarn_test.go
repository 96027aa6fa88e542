package validate

import (
	"cmp"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// TestCaptureReplayWarnsAsReplayDoes: a record whose body is shorter than
// its Content-Length is one whsim replay sends with a warning (edited
// since, when listen answered it 2xx; cut short, when not): validate names
// it under capture-replay, as a warning, in replay's words. Found by ls45:
// validate passed a record whose Content-Length was edited to 99999
// (exit 0) while replay warned "edited since".
func TestCaptureReplayWarnsAsReplayDoes(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	body := strings.ReplaceAll(strings.ReplaceAll(load(t, "receipt.json"), "\n", ""), `"`, `\"`)
	n := len(strings.ReplaceAll(load(t, "receipt.json"), "\n", ""))
	line := func(headers, enc, body string, status string) []byte {
		return []byte(`{"capture":1,"time":"2026-11-22T04:00:00.123456789Z","remote":"127.0.0.1:53422","method":"POST","path":"/hook",` +
			`"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]` + headers + `},"body":"` + body +
			`","bodyEncoding":"` + enc + `","response":{"status":` + status + `,"body":"","bodyEncoding":"utf8"}}`)
	}
	itoa := strconv.Itoa
	tests := []struct {
		name string
		line []byte
		want string // the capture-replay finding's message, "" none
	}{
		{"as listen wrote it", line(`,"Content-Length":["`+itoa(n)+`"]`, "utf8", body, "200"), ""},
		{"edited since, answered 2xx", line(`,"Content-Length":["99999"]`, "utf8", body, "200"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99999, " + itoa(n) + " bytes recorded), which listen answered 200 whole: edited since; sent as recorded"},
		{"edited since, named in lower case", line(`,"content-length":["99999"]`, "utf8", body, "204"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99999, " + itoa(n) + " bytes recorded), which listen answered 204 whole: edited since; sent as recorded"},
		{"a second value larger", line(`,"Content-Length":["`+itoa(n)+`","99999"]`, "utf8", body, "200"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99999, " + itoa(n) + " bytes recorded), which listen answered 200 whole: edited since; sent as recorded"},
		{"cut short, answered 400", line(`,"Content-Length":["100"]`, "utf8", `{\"requestId\":\"abc\",`, "400"),
			"whsim replay warns as it sends it again: its body came cut short (Content-Length 100, 19 bytes recorded): sent as recorded, as a whole call, which the sender never made"},
		{"base64, edited since", line(`,"Content-Length":["99"]`, "base64", b64(`{"requestId":"x"}`), "200"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99, 17 bytes recorded), which listen answered 200 whole: edited since; sent as recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _, _ := v.checkCapture(tt.line)
			got := ""
			for _, f := range fs {
				if f.Rule == ruleReplay {
					if got != "" {
						t.Fatalf("two capture-replay findings: %+v", fs)
					}
					got = f.Message
					if f.Severity != Warning {
						t.Errorf("severity %s, want warning: replay sends it", f.Severity)
					}
				}
			}
			if got != tt.want {
				t.Errorf("capture-replay %q,\nwant %q\n(findings %+v)", got, tt.want, fs)
			}
		})
	}
}

// FuzzCaptureReplayAgreesWithReplay holds validate to replay on every
// record: a capture-replay warning in replay's words exactly when replay
// would send the record with a warning (capture.Record.ReplayWarning, of
// a record it does not refuse), on the fast path as on the slow.
func FuzzCaptureReplayAgreesWithReplay(f *testing.F) {
	for _, h := range []string{`"Content-Length":["99999"]`, `"content-length":["1","99999"]`, `"Content-Length":["+5"]`,
		`"Content-Length":[" 40 "]`, `"Content-Length":["\u0039\u0039"]`, `"Content-Length":["0"]`, `"Content-Length":null`} {
		for _, status := range []string{"200", "400", "204"} {
			f.Add([]byte(`{"capture":1,"method":"POST","query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"],` + h +
				`},"body":"{\"requestId\":\"abc\"}","bodyEncoding":"utf8","response":{"status":` + status + `,"body":"","bodyEncoding":"utf8"}}`))
		}
	}
	f.Add([]byte(`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Length":["99"]},"body":"eyJhIjoxfQ==","bodyEncoding":"base64","response":{"status":200}}`))
	f.Add([]byte(`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Length":["99"]},"body":"","bodyOverLimit":99,"response":{"status":413}}`))
	f.Add([]byte(`{"capture":1,"query":"businessType=X&a b","headers":{"Content-Length":["99"]},"body":"x","response":{"status":200}}`))
	f.Add([]byte(`{"capture":1,"method":"CONNECT","path":"example.com:443","headers":{"Content-Length":["99"]},"body":"x","response":{"status":405}}`))
	v := mustNew(f, Options{})
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := capture.Decode(line)
		if err != nil {
			return
		}
		fs, _, _ := v.checkCapture(line)
		var got []Finding
		for _, f := range fs {
			if f.Rule == ruleReplay && f.Severity == Warning {
				got = append(got, f)
			}
		}
		want := rec.ReplayWarning()
		if rec.Rejected != nil || rec.BodyOverLimit > 0 || rec.TunnelWhy() != "" || capture.CheckReplayable(cmp.Or(rec.Method, "POST"), replayQuery(rec), rec.Headers) != nil {
			want = "" // refused: no warning of replay's
		} else if _, err := rec.RequestBody(); err != nil {
			want = ""
		}
		switch {
		case want == "" && got != nil:
			t.Fatalf("capture-replay warning %+v of a record replay sends without one: %q", got, line)
		case want != "" && (len(got) != 1 || got[0].Message != "whsim replay warns as it sends it again: "+want):
			t.Fatalf("capture-replay warnings %+v, want replay's %q: %q", got, want, line)
		}
	})
}

// replayQuery is the query replay checks, decoded as replayFindings
// decodes it.
func replayQuery(rec *capture.Record) string {
	if rec.QueryEncoding == "" {
		return rec.Query
	}
	q, err := capture.DecodeBody(rec.Query, rec.QueryEncoding)
	if err != nil {
		return rec.Query
	}
	return string(q)
}

// TestCaptureReplayNamesAConnect: a CONNECT listen recorded (a tunnel
// asked of it as of a proxy) is a record whsim replay refuses; validate
// names it under capture-replay, in replay's words, as it names the other
// records replay refuses. Found by ls45: only http-method said it, and
// with that rule ignored validate named no line replay would skip.
func TestCaptureReplayNamesAConnect(t *testing.T) {
	t.Parallel()
	line := []byte(`{"capture":1,"method":"CONNECT","path":"example.com:443","query":"","headers":{"Host":["example.com:443"]},"body":"","bodyEncoding":"utf8","response":{"status":405,"body":"","bodyEncoding":"utf8"}}`)
	v := mustNew(t, Options{Ignore: []string{RuleHTTPMethod}})
	fs, _, _ := v.checkCapture(line)
	want := `whsim replay refuses to send it again: a CONNECT to "example.com:443", a tunnel asked of listen as of an HTTP proxy, so there is no webhook call to send again`
	for _, f := range fs {
		if f.Rule == ruleReplay {
			if f.Message != want || f.Severity != Error {
				t.Errorf("capture-replay %s %q, want error %q", f.Severity, f.Message, want)
			}
			return
		}
	}
	t.Errorf("no capture-replay finding: %+v", fs)
}
