package export

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func testCalls() []Call {
	return []Call{
		{Event: "CREATE_RECEIVABLE_DOC", URL: "http://127.0.0.1:9/hook?businessType=CREATE_RECEIVABLE_DOC",
			Header: http.Header{"Content-Type": {"application/json"}, "X-Tenant": {"7", "8"}},
			Body:   []byte(`{"requestId":"a","data":{"客户":"上海"}}`), RequestID: "a"},
		{Event: "ABANDON_RECEIVABLE_DOC", URL: "http://127.0.0.1:9/hook?businessType=ABANDON_RECEIVABLE_DOC",
			Header: http.Header{"Content-Type": {"application/json"}},
			Body:   []byte(`{"requestId":"b"}`), RequestID: "b"},
	}
}

// vegeta's JSON schema has method, url, header and body (base64) and no
// other field; one target a line.
func TestVegetaTargetsHoldOnlyTheSchemaFields(t *testing.T) {
	var out bytes.Buffer
	if err := Vegeta(context.Background(), &out, testCalls()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out.String())
	}
	for i, line := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"body", "header", "method", "url"}) {
			t.Errorf("line %d: fields %v", i, keys)
		}
		var tg struct {
			Method, URL string
			Header      http.Header
			Body        []byte
		}
		_ = json.Unmarshal([]byte(line), &tg)
		want := testCalls()[i]
		if tg.Method != "POST" || tg.URL != want.URL || !bytes.Equal(tg.Body, want.Body) || tg.Header.Get("Content-Type") != "application/json" {
			t.Errorf("line %d: %+v", i, tg)
		}
	}
}

func TestK6DataRoundTrips(t *testing.T) {
	var out bytes.Buffer
	if err := k6Data(context.Background(), &out, testCalls()); err != nil {
		t.Fatal(err)
	}
	var got []k6Call
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Body != string(testCalls()[0].Body) || got[0].Header["X-Tenant"] != "7, 8" || got[1].RequestID != "b" {
		t.Errorf("data %+v", got)
	}
}

// A body k6's data file cannot carry byte for byte is refused, naming
// the call and the byte: json.Marshal put U+FFFD where a byte of a body
// that is not UTF-8 was, and k6 sent that, not the body vegeta and send
// deliver. Any text (Chinese, control characters, an escaped lone
// surrogate) goes through as it is.
func TestK6DataCarriesBodiesByteForByte(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		want string // the error, "" for none
	}{
		{`{"requestId":"a","data":{"备注":"货到付款"}}`, ""},
		{"{\"requestId\":\"a\",\"y\":\"a\x01b\"}", ""},
		{`{"requestId":"a","z":"\ud800"}`, ""},
		{"{\"y\":\"a\xffb\"}", "call 2 (CREATE_RECEIVABLE_DOC): its body is not valid UTF-8 (byte 0xff at offset 7)"},
		{"{\"y\":\"货\xe8\xb4\"}", "call 2 (CREATE_RECEIVABLE_DOC): its body is not valid UTF-8 (byte 0xe8 at offset 9)"},
	} {
		calls := []Call{{Event: "CREATE_RECEIVABLE_DOC", Body: []byte(`{}`)}, {Event: "CREATE_RECEIVABLE_DOC", Body: []byte(tt.body)}}
		var out bytes.Buffer
		err := k6Data(context.Background(), &out, calls)
		if tt.want == "" {
			var got []k6Call
			if err != nil || json.Unmarshal(out.Bytes(), &got) != nil || got[1].Body != tt.body {
				t.Errorf("%q: err %v, data %s", tt.body, err, out.Bytes())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "whsim export vegeta") {
			t.Errorf("%q: err %v, want %q", tt.body, err, tt.want)
		}
		if K6Text(calls) == nil {
			t.Errorf("%q: K6Text took it", tt.body)
		}
	}
}

// The data file, written a call at a time, is byte for byte one
// json.Marshal of the whole array (as it was written before: an array of
// every call held twice over in memory), with a line end; no call, "[]".
func TestK6DataIsOneArray(t *testing.T) {
	for _, calls := range [][]Call{testCalls(), testCalls()[:1], nil} {
		want := make([]k6Call, 0, len(calls))
		for _, c := range calls {
			h := map[string]string{}
			for k, v := range c.Header {
				h[k] = strings.Join(v, ", ")
			}
			want = append(want, k6Call{Event: c.Event, URL: c.URL, Header: h, Body: string(c.Body), RequestID: c.RequestID, KeepID: c.UserID})
		}
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := k6Data(context.Background(), &got, calls); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(b)+"\n" {
			t.Errorf("%d calls:\ngot  %s\nwant %s", len(calls), got.String(), b)
		}
	}
}

// A shared-iterations run is never stopped by its maxDuration while its
// calls still end within their time limit: a fixed '30m' stopped a
// million calls to a receiver answering in 20 ms (500 a second on 10
// VUs) at 900,000, where export said k6 made each once.
func TestK6ScriptMaxDurationOutlastsTheCalls(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		calls   int
		timeout time.Duration
		want    string
	}{
		{4, 10 * time.Second, "maxDuration: '30m40s',"},
		{1_000_000, 10 * time.Second, "maxDuration: '2778h16m40s',"},
		{1_000_000, 20 * time.Millisecond, "maxDuration: '6h3m20s',"},
		{3, 1500 * time.Microsecond, "maxDuration: '30m0s',"},
		// At most 100,000 hours: k6 adds its graceful stop to it.
		{1_000_000, 10 * time.Hour, "maxDuration: '100000h0m0s',"},
	} {
		var b bytes.Buffer
		o := k6Options{DataFile: "data.json", Calls: tt.calls, VUs: 10, P95: time.Second, Reach: Reach{Timeout: tt.timeout}}
		if err := writeK6Script(&b, o); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("%d calls, timeout %s: want %q in\n%s", tt.calls, tt.timeout, tt.want, b.String())
		}
	}
}

func TestK6Script(t *testing.T) {
	tests := []struct {
		name     string
		o        k6Options
		has, not []string
	}{
		{"each call once", k6Options{DataFile: "data.json", Calls: 40, VUs: 4, P95: 1500 * time.Millisecond, Reach: Reach{Timeout: 10 * time.Second}},
			[]string{"timeout: 10000 });", "executor: 'shared-iterations'", "iterations: 40,", "vus: 4,", "exec.scenario.iterationInTest", "i >= calls.length && !c.keepId", "p(95)<1500",
				"http_req_failed: ['rate<0.01']", "new SharedArray('calls'", "open('./data.json')", "r.status >= 200 && r.status < 300",
				// A 3xx is a failure, as send counts it: not followed, and
				// not among k6's expected statuses.
				"maxRedirects: 0,", "http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }));"},
			[]string{"crypto", "webhook-signature", "constant-arrival-rate", "insecureSkipTLSVerify"}},
		{"send's --timeout and --insecure", k6Options{DataFile: "data.json", Calls: 4, VUs: 4, P95: time.Second, Reach: Reach{Timeout: 2500 * time.Microsecond, Insecure: true}},
			[]string{"timeout: 2.5 });", "  insecureSkipTLSVerify: true,\n"}, nil},
		{"at a rate, signed", k6Options{DataFile: "data.json", Calls: 8, Rate: 200, Duration: time.Minute, VUs: 10, MaxVUs: 400, P95: time.Second, Sign: true, Reach: Reach{Timeout: time.Minute}},
			[]string{"executor: 'constant-arrival-rate'", "rate: 200,", "duration: '1m0s'", "preAllocatedVUs: 10,", "maxVUs: 400,",
				"__ENV.WEBHOOK_SECRET", "crypto.hmac('sha256', key, wid + '.' + ts + '.' + body, 'base64')", "headers['webhook-id'] = wid"},
			[]string{"shared-iterations", "whsec_M"}},
		{"a p95 below a millisecond is not 0 (which no call meets)", k6Options{DataFile: "data.json", Calls: 4, VUs: 4, P95: 500 * time.Microsecond, Reach: Reach{Timeout: time.Second}},
			[]string{"p(95)<0.5'"}, []string{"p(95)<0'"}},
		{"a p95 of whole and part milliseconds", k6Options{DataFile: "data.json", Calls: 4, VUs: 4, P95: 2500 * time.Microsecond, Reach: Reach{Timeout: time.Second}},
			[]string{"p(95)<2.5'"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := writeK6Script(&out, tt.o); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.has {
				if !strings.Contains(out.String(), s) {
					t.Errorf("script lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.not {
				if strings.Contains(out.String(), s) {
					t.Errorf("script has %q", s)
				}
			}
		})
	}
	if err := writeK6Script(&bytes.Buffer{}, k6Options{Reach: Reach{Timeout: time.Second}}); err == nil {
		t.Error("a script of no calls was written")
	}
	if err := writeK6Script(&bytes.Buffer{}, k6Options{Calls: 1}); err == nil {
		t.Error("a script without a timeout was written (k6 would take 0 for none)")
	}
	if n := (k6Options{Calls: 8, Rate: 200, Duration: 90 * time.Second}).Iterations(); n != 18000 {
		t.Errorf("iterations %d, want 18000", n)
	}
}

func TestK6TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := k6TestRun(&out, testRunOptions{Name: "load", Script: "script.js", DataFile: "data.json", Parallelism: 4, Sign: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"apiVersion: k6.io/v1alpha1", "kind: TestRun", "name: load\n", "parallelism: 4", "file: script.js",
		"name: WEBHOOK_SECRET", "name: load-secret",
		// The steps its comment gives run it: the secret the pods read
		// made too (without it each pod's script stopped at once).
		"#   kubectl create secret generic load-secret --from-literal=secret=\"$WEBHOOK_SECRET\"\n#   kubectl apply -f testrun.yaml"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("manifest lacks %q:\n%s", s, out.String())
		}
	}

	// A private CA: the pods trust the copy the ConfigMap mounts beside
	// the script (k6-operator mounts it at /test), and the comment's
	// command puts it in the ConfigMap; the secret's variable stays.
	out.Reset()
	if err := k6TestRun(&out, testRunOptions{Name: "load", Script: "script.js", DataFile: "data.json", Parallelism: 2, Sign: true, CAFile: "ca.pem"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"- name: SSL_CERT_FILE\n        value: /test/ca.pem\n", "name: WEBHOOK_SECRET", "--from-file=data.json --from-file=ca.pem\n"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("manifest lacks %q:\n%s", s, out.String())
		}
	}
}

func TestHeaderText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		h    http.Header
		want string // the error, "" for none
	}{
		{http.Header{"Content-Type": {"application/json"}, "X-Tenant": {"上海", "7"}}, ""},
		{http.Header{"X-B": {"ok"}, "X-A": {"ok", "a\xffb"}}, `"X-A": its value is not valid UTF-8`},
		{http.Header{"X-\x1b": {"\xe8"}}, `"X-\x1b": its value`},
	} {
		err := HeaderText(tt.h)
		if got := ""; err != nil {
			got = err.Error()
			if tt.want == "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("%v: %q, want %q", tt.h, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("%v: nil, want %q", tt.h, tt.want)
		}
	}
}
