package replay

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

func TestRequestFromRecord(t *testing.T) {
	t.Parallel()
	rec := &capture.Record{Method: "PUT", Query: "businessType=CREATE_RECEIVABLE_DOC&x=1", Headers: http.Header{
		"Host": {"h"}, "Content-Length": {"9"}, "Connection": {"close"}, "Accept-Encoding": {"gzip"},
		"X-Trace": {"t1"},
	}}
	rec.SetBody([]byte(`{"requestId":"11111111-1111-4111-8111-111111111111","data":{}}`))
	req, _, err := request(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "PUT" || req.Event != "CREATE_RECEIVABLE_DOC" || req.Query != rec.Query ||
		req.RequestID != "11111111-1111-4111-8111-111111111111" || string(req.Body) != `{"requestId":"11111111-1111-4111-8111-111111111111","data":{}}` {
		t.Errorf("request %+v", req)
	}
	want := http.Header{"X-Trace": {"t1"}, "Content-Type": nil, "User-Agent": nil}
	if fmt.Sprint(req.Header) != fmt.Sprint(want) {
		t.Errorf("header %v, want %v", req.Header, want)
	}
	fresh, _, err := request(rec, reqid.NewIDs(3))
	if err != nil || fresh.RequestID == req.RequestID || len(fresh.RequestID) != 36 ||
		string(fresh.Body) != strings.Replace(string(req.Body), req.RequestID, fresh.RequestID, 1) {
		t.Errorf("fresh id: %+v %v", fresh, err)
	}
	if r, _, _ := request(&capture.Record{}, nil); r.Method != "POST" || r.Event != "-" {
		t.Errorf("empty record: %+v", r)
	}
}

func TestReplayerFiltersAndWarns(t *testing.T) {
	t.Parallel()
	var b []byte
	for _, ev := range []string{"CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC", "CREATE_RECEIVABLE_DOC"} {
		r := &capture.Record{Method: "POST", Query: "businessType=" + ev}
		r.SetBody([]byte(`{}`))
		var err error
		if b, err = capture.Append(b, r); err != nil {
			t.Fatal(err)
		}
	}
	b = append(b, `{"capture":1,"ti`...)
	receivable, ok := spec.Lookup("CREATE_RECEIVABLE_DOC")
	if !ok {
		t.Fatal("no CREATE_RECEIVABLE_DOC")
	}
	var warnings []string
	s := &Replayer{
		Inputs: []capture.Input{{Name: "a.ndjson", R: strings.NewReader(string(b))}, {Name: "b.ndjson", R: strings.NewReader("")}},
		Events: []spec.Event{receivable},
		Warn:   func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) },
	}
	var seqs []int
	var sources []string
	for reqs := s.Next(); reqs != nil; reqs = s.Next() {
		if reqs[0].Event != "CREATE_RECEIVABLE_DOC" {
			t.Errorf("replayed %s", reqs[0].Event)
		}
		seqs = append(seqs, reqs[0].Seq)
		sources = append(sources, reqs[0].Source)
	}
	if fmt.Sprint(seqs) != "[1 2]" || s.Err() != nil {
		t.Errorf("seqs %v, err %v", seqs, s.Err())
	}
	// Each call names the record it was read from: lines 1 and 3 (the
	// second, another event's, is not replayed).
	if fmt.Sprint(sources) != "[a.ndjson:1 a.ndjson:3]" {
		t.Errorf("sources %q, want the records' lines", sources)
	}
	if len(warnings) != 2 || !strings.HasPrefix(warnings[0], "a.ndjson:4: "+input.TornLine(false)) || !strings.HasSuffix(warnings[0], "; skipped, not replayed") || warnings[1] != "b.ndjson: empty, nothing to replay" {
		t.Errorf("warnings %q", warnings)
	}
}

// TestReplayerMarks: a record with a requestId an earlier one had is a
// duplicate; with --sign each call carries the webhook-id to sign with;
// a fresh requestId on a signed capture warns once; -H replaces a header.
func TestReplayerMarks(t *testing.T) {
	t.Parallel()
	rec := func(id, webhookID string) *capture.Record {
		r := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Authorization": {"Bearer ****"}}}
		if webhookID != "" {
			r.Headers["Webhook-Id"] = []string{webhookID}
			r.Headers["Webhook-Signature"] = []string{"v1,stale"}
		}
		body := `{"data":{}}`
		if id != "" {
			body = `{"requestId":"` + id + `","data":{}}`
		}
		r.SetBody([]byte(body))
		return r
	}
	captured := func(recs ...*capture.Record) []capture.Input {
		var b []byte
		for _, r := range recs {
			var err error
			if b, err = capture.Append(b, r); err != nil {
				t.Fatal(err)
			}
		}
		return []capture.Input{{Name: "c.ndjson", R: strings.NewReader(string(b))}}
	}
	const a, b = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	all := func(s *Replayer) []*attempt.Request {
		var out []*attempt.Request
		for reqs := s.Next(); reqs != nil; reqs = s.Next() {
			out = append(out, reqs...)
		}
		return out
	}

	s := &Replayer{Inputs: captured(rec(a, ""), rec(b, ""), rec(a, ""), rec(a, ""), rec("", "")), Warn: func(string, ...any) { t.Error("warned") }}
	var dups []bool
	for _, r := range all(s) {
		dups = append(dups, r.Duplicate)
	}
	if fmt.Sprint(dups) != "[false false true true false]" {
		t.Errorf("duplicates %v, want the 3rd and 4th", dups)
	}

	s = &Replayer{Inputs: captured(rec(a, "msg_a"), rec("", ""), rec(b, "")), Signed: true,
		Header: http.Header{"Authorization": {"Bearer t0k3n"}}, Warn: func(string, ...any) { t.Error("warned") }}
	reqs := all(s)
	if reqs[0].WebhookID != "msg_a" || !strings.HasPrefix(reqs[1].WebhookID, "msg_") || reqs[2].WebhookID != b {
		t.Errorf("webhook-ids %q %q %q: want the captured one, one from the body, the requestId", reqs[0].WebhookID, reqs[1].WebhookID, reqs[2].WebhookID)
	}
	if reqs[0].Header.Get("Authorization") != "Bearer t0k3n" {
		t.Errorf("Authorization %q, want -H's", reqs[0].Header.Get("Authorization"))
	}
	again := all(&Replayer{Inputs: captured(rec("", "")), Signed: true, Warn: func(string, ...any) {}})
	if again[0].WebhookID != reqs[1].WebhookID {
		t.Errorf("the same body got webhook-ids %q and %q", reqs[1].WebhookID, again[0].WebhookID)
	}
	fresh := all(&Replayer{Inputs: captured(rec(a, "msg_a")), Signed: true, IDs: reqid.NewIDs(5), Warn: func(string, ...any) {}})
	if fresh[0].WebhookID != fresh[0].RequestID || fresh[0].RequestID == a {
		t.Errorf("a fresh requestId is a new message: webhook-id %q, requestId %q", fresh[0].WebhookID, fresh[0].RequestID)
	}

	var warnings []string
	s = &Replayer{Inputs: captured(rec(a, "msg_a"), rec(b, "msg_b")), IDs: reqid.NewIDs(5),
		Warn: func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) }}
	all(s)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "add --sign standard") {
		t.Errorf("warnings %q, want one suggesting --sign", warnings)
	}
}

// A pipe that holds payloads, or is not JSON, ends the replay when it is
// reached, with one error naming it.
func TestReplayerRefusesWhatIsNotACapture(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, err string }{
		{`{"requestId":"r"}` + "\n", "p holds payloads, not captures"},
		{"[{}]", "p holds payloads"},
		{"hello\n", `p:1:1: not JSON or NDJSON (the line begins "hello", which starts no JSON value)`},
	} {
		s := &Replayer{Inputs: []capture.Input{{Name: "p", R: strings.NewReader(tt.in)}}, Warn: func(string, ...any) {}}
		if reqs := s.Next(); reqs != nil || s.Err() == nil || !strings.HasPrefix(s.Err().Error(), tt.err) {
			t.Errorf("%q: %v, %v; want %s", tt.in, reqs, s.Err(), tt.err)
		}
	}
}

// A replay cut short after k calls counts the rest as not started: the
// calls of the events asked for, in the input being read and the ones
// after it, never a skipped line; an input that cannot be reopened (stdin)
// counts none and is said uncounted, the others counted beside it.
func TestReplayerLeft(t *testing.T) {
	t.Parallel()
	capLines := func(events ...string) string {
		var b []byte
		for _, ev := range events {
			r := &capture.Record{Method: "POST", Query: "businessType=" + ev}
			r.SetBody([]byte(`{}`))
			var err error
			if b, err = capture.Append(b, r); err != nil {
				t.Fatal(err)
			}
		}
		return string(b)
	}
	const rc, ab = "CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"
	files := []string{
		capLines(rc, ab, rc) + "not a record\n" + capLines(rc),
		"",
		capLines(ab, rc, rc),
	}
	receivable, _ := spec.Lookup(rc)
	const total = 5 // the CREATE_RECEIVABLE_DOC calls
	for _, tt := range []struct {
		name   string
		reopen func(i int) bool
		events []spec.Event
		want   func(k int) int
	}{
		{"filtered", func(int) bool { return true }, []spec.Event{receivable}, func(k int) int { return total - k }},
		{"every event", func(int) bool { return true }, nil, func(k int) int { return total + 2 - k }},
		{"no reopen", func(int) bool { return false }, []spec.Event{receivable}, func(int) int { return 0 }},
		// The first input is stdin: what it still held is not counted,
		// the last file's two calls are.
		{"stdin first", func(i int) bool { return i > 0 }, []spec.Event{receivable}, func(k int) int { return min(2, total-k) }},
	} {
		n := total
		if tt.events == nil {
			n = total + 2
		}
		for k := 0; k <= n; k++ {
			var ins []capture.Input
			for i, f := range files {
				ins = append(ins, capture.Input{Name: fmt.Sprint(i), R: strings.NewReader(f)})
			}
			s := &Replayer{Inputs: ins, Events: tt.events, Warn: func(string, ...any) {}}
			s.Reopen = func(i int) (io.ReadCloser, error) {
				if !tt.reopen(i) {
					return nil, nil
				}
				return io.NopCloser(strings.NewReader(files[i])), nil
			}
			for range k {
				if s.Next() == nil {
					t.Fatalf("%s: ran dry before %d", tt.name, k)
				}
			}
			// Uncounted while an input not reopened was still to be read
			// to its end (the one being read, or one after it).
			wantUncounted := false
			for i := s.i; i < len(files); i++ {
				wantUncounted = wantUncounted || !tt.reopen(i)
			}
			if got, uncounted := s.Left(); got != tt.want(k) || uncounted != wantUncounted {
				t.Errorf("%s: after %d calls Left %d, uncounted %v, want %d, %v", tt.name, k, got, uncounted, tt.want(k), wantUncounted)
			}
			if s.Next() != nil {
				t.Errorf("%s: Left did not end the replay", tt.name)
			}
		}
	}
}

// A capture file is untrusted: a record whose method, query or headers
// would not make one well-formed HTTP request (a CR LF that writes a
// header of its own, a space that splits the request line) is refused,
// not sent; bytes a sender may really send (obs-text in a value, a tab)
// are replayed.
func TestRequestRefusesWhatIsNotHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		query   string
		header  http.Header
		wantErr string
	}{
		{name: "plain", method: "POST", query: "businessType=E&x=%20", header: http.Header{"X-A": {"a\tb"}}},
		{name: "obs-text value", method: "POST", query: "x=\xff&q=\"<>{}|#f", header: http.Header{"X-A": {"\xff\xfe"}}},
		{name: "lower-case method", method: "post"},
		{name: "CR LF in a value", method: "POST", header: http.Header{"X-Inj": {"a\r\nX-Injected: 1"}}, wantErr: `header "X-Inj": its value holds the control character 0x0d`},
		{name: "NUL in a value", method: "POST", header: http.Header{"X-B": {"\xff\x00"}}, wantErr: `header "X-B": its value holds the control character 0x00`},
		{name: "space in a name", method: "POST", header: http.Header{"Bad Name": {"v"}}, wantErr: `header "Bad Name": not a header name`},
		{name: "colon in a name", method: "POST", header: http.Header{"A:B": {"v"}}, wantErr: `header "A:B": not a header name`},
		{name: "space in the method", method: "PO ST", wantErr: `method "PO ST": not an HTTP method`},
		{name: "CR LF in the method", method: "GET / HTTP/1.1\r\nHost: x\r\n\r\nPOST", wantErr: `not an HTTP method`},
		{name: "space in the query", method: "POST", query: "x=a b", wantErr: `query "x=a b": holds a space or a control character at byte 3`},
		{name: "LF in the query", method: "POST", query: "x=a\nb", wantErr: `query "x=a\nb": holds a space or a control character at byte 3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &capture.Record{Method: tt.method, Query: tt.query, Headers: tt.header}
			rec.SetBody([]byte(`{}`))
			_, _, err := request(rec, nil)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one saying %s", err, tt.wantErr)
			}
		})
	}
}

// TestReplayerNothingSent: inputs that gave no call say why (skipped is
// never a pass, nor is empty); a call sent says nothing.
func TestReplayerNothingSent(t *testing.T) {
	t.Parallel()
	good := `{"capture":1,"method":"POST","query":"businessType=CREATE_RECEIVABLE_DOC","body":"{}"}` + "\n"
	bad := `{"capture":1,"body":"{}","body":"x"}` + "\n"
	abandon, _ := spec.Lookup("ABANDON_RECEIVABLE_DOC")
	for _, tt := range []struct {
		name   string
		inputs []string
		events []spec.Event
		want   string
	}{
		{"empty", []string{"", "\n"}, nil, "nothing was sent: 2 of the 2 inputs were empty (no capture record)"},
		{"one empty", []string{""}, nil, "nothing was sent: 0.ndjson is empty (it holds no capture record)"},
		{"skipped and empty", []string{bad, ""}, nil, "nothing was sent: 1 line was skipped (the warnings above say why); 1 of the 2 inputs was empty (no capture record)"},
		{"a call sent", []string{bad, good}, nil, ""},
		{"a call sent beside an empty input", []string{"", good}, nil, ""},
		{"every line skipped", []string{bad, bad + `{"capture":1,"ti`}, nil, "nothing was sent: 3 lines were skipped (the warnings above say why)"},
		{"one torn line", []string{`{"capture":1,"ti`}, nil, "nothing was sent: 1 line was skipped"},
		{"not replayable", []string{`{"capture":1,"method":"PO ST","body":"{}"}` + "\n"}, nil, "nothing was sent: 1 line was skipped"},
		{"none of the events asked", []string{good, good}, []spec.Event{abandon}, "nothing was sent: 2 records are not of the events asked (--event ABANDON_RECEIVABLE_DOC)"},
		{"both", []string{bad, good}, []spec.Event{abandon}, "nothing was sent: 1 line was skipped (the warnings above say why); 1 record is not of the events asked (--event ABANDON_RECEIVABLE_DOC)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &Replayer{Events: tt.events, Warn: func(string, ...any) {}}
			for i, in := range tt.inputs {
				s.Inputs = append(s.Inputs, capture.Input{Name: fmt.Sprint(i, ".ndjson"), R: strings.NewReader(in)})
			}
			for s.Next() != nil {
			}
			got := ""
			if err := s.NothingSent(); err != nil {
				got = err.Error()
			}
			if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReplayerSkipped: lines skipped beside calls sent are said, whatever
// made them unreplayable (a torn line, a record that does not parse, one
// that cannot be sent); records of an event not asked are no skip.
func TestReplayerSkipped(t *testing.T) {
	t.Parallel()
	good := `{"capture":1,"method":"POST","query":"businessType=CREATE_RECEIVABLE_DOC","body":"{}"}` + "\n"
	bad := `{"capture":1,"body":"{}","body":"x"}` + "\n"
	abandon, _ := spec.Lookup("ABANDON_RECEIVABLE_DOC")
	for _, tt := range []struct {
		name   string
		inputs []string
		events []spec.Event
		want   string
	}{
		{"whole", []string{good, good}, nil, ""},
		{"not JSON", []string{good + "{not json\n" + good}, nil, "1 line was skipped, not replayed (the warnings above say why)"},
		{"ambiguous record and torn line", []string{good + bad + `{"capture":1,"ti`}, nil, "2 lines were skipped, not replayed (the warnings above say why)"},
		{"not replayable", []string{good + `{"capture":1,"method":"PO ST","body":"{}"}` + "\n"}, nil, "1 line was skipped, not replayed"},
		{"newer format", []string{good + `{"capture":99,"body":"{}"}` + "\n"}, nil, "1 line was skipped, not replayed"},
		{"a body over the limit", []string{good + `{"capture":1,"method":"POST","query":"businessType=CREATE_RECEIVABLE_DOC","body":"","bodyOverLimit":100}` + "\n"}, nil, "1 line was skipped, not replayed"},
		{"other events are no skip", []string{good}, []spec.Event{abandon}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &Replayer{Events: tt.events, Warn: func(string, ...any) {}}
			for i, in := range tt.inputs {
				s.Inputs = append(s.Inputs, capture.Input{Name: fmt.Sprint(i, ".ndjson"), R: strings.NewReader(in)})
			}
			for s.Next() != nil {
			}
			got := ""
			if err := s.Skipped(); err != nil {
				got = err.Error()
			}
			if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRequestKeepsTheMethod: a method is replayed as captured, case and
// all (RFC 9110 §9.1: methods are case-sensitive, and a receiver that
// answers "post" 405 must still see "post"); a record without one is a
// POST, the sender's method.
func TestRequestKeepsTheMethod(t *testing.T) {
	t.Parallel()
	tests := []struct{ method, want string }{
		{"POST", "POST"},
		{"post", "post"},
		{"Put", "Put"},
		{"", "POST"},
	}
	for _, tt := range tests {
		rec := &capture.Record{Method: tt.method, Query: "businessType=CREATE_RECEIVABLE_DOC"}
		rec.SetBody([]byte(`{}`))
		req, _, err := request(rec, nil)
		if err != nil {
			t.Fatalf("method %q: %v", tt.method, err)
		}
		if req.Method != tt.want {
			t.Errorf("method %q replayed as %q, want %q", tt.method, req.Method, tt.want)
		}
	}
}

// TestRequestOfACompressedBody: a body sent compressed (Content-Encoding)
// holds its requestId compressed. It is read from the document the body
// decodes to, so a re-delivery counts as one, and --new-request-id splices
// a fresh one into that document, which goes out coded as it came; the
// body of a call replayed as it was is the captured bytes.
func TestRequestOfACompressedBody(t *testing.T) {
	t.Parallel()
	const id = "11111111-1111-4111-8111-111111111111"
	doc := []byte(`{"requestId":"` + id + `","businessType":5007,"data":{}}`)
	var zl, raw bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write(doc)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	fw.Write(doc)
	fw.Close()
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(doc)
	gw.Close()
	tests := []struct {
		name, coding string
		body         []byte
	}{
		{"gzip", "gzip", gz.Bytes()},
		{"x-gzip", "x-gzip", gz.Bytes()},
		{"deflate (zlib)", "deflate", zl.Bytes()},
		{"deflate (raw)", "deflate", raw.Bytes()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC",
				Headers: http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {tt.coding}}}
			rec.SetBody(tt.body)
			as, _, err := request(rec, nil)
			if err != nil {
				t.Fatal(err)
			}
			if as.RequestID != id || !bytes.Equal(as.Body, tt.body) {
				t.Errorf("as captured: requestId %q, body changed %v; want %s and the captured bytes", as.RequestID, !bytes.Equal(as.Body, tt.body), id)
			}
			fresh, _, err := request(rec, reqid.NewIDs(3))
			if err != nil {
				t.Fatal(err)
			}
			if fresh.RequestID == id || len(fresh.RequestID) != 36 {
				t.Fatalf("fresh requestId %q", fresh.RequestID)
			}
			if got := fresh.Header.Get("Content-Encoding"); got != tt.coding {
				t.Errorf("Content-Encoding %q, want %q", got, tt.coding)
			}
			got, err := capture.DecodeContent(fresh.Body, []string{tt.coding}, 1<<20)
			if want := bytes.Replace(doc, []byte(id), []byte(fresh.RequestID), 1); err != nil || !bytes.Equal(got, want) {
				t.Errorf("the body decodes to %s (%v), want %s", got, err, want)
			}
		})
	}
}

// TestReplayerWarnsOfABodyCutShort: listen records the bytes that came of
// a body not read whole (http-body-incomplete) under the Content-Length the
// sender declared. Replayed, those bytes go out as a whole call that the
// sender never made, so the replay says so, naming the line; a whole body
// says nothing, whatever case its header is in.
func TestReplayerWarnsOfABodyCutShort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header http.Header
		body   string
		want   string // the warning, "" for none
		status int    // listen's answer, 0 for none
	}{
		// listen answers 2xx only to a body read whole: one shorter than
		// its length since was edited (jq on the body), not cut short.
		{"edited", http.Header{"Content-Length": {"100"}}, `{"requestId":"abc"}`, `c.ndjson:1: its body is shorter than its Content-Length (100, 19 bytes recorded), which listen answered 200 whole: edited since; sent as recorded`, 200},
		{"cut short", http.Header{"Content-Length": {"100"}}, `{"requestId":"abc",`, `c.ndjson:1: its body came cut short (Content-Length 100, 19 bytes recorded): sent as recorded, as a whole call`, 400},
		{"cut short, base64", http.Header{"Content-Length": {"9"}}, "\xff\xfe", `(Content-Length 9, 2 bytes recorded)`, 0},
		// Only a 2xx says listen read it whole: a 300 (--status 300) does not.
		{"cut short, answered 300", http.Header{"Content-Length": {"100"}}, `{"requestId":"abc",`, `c.ndjson:1: its body came cut short (Content-Length 100, 19 bytes recorded)`, 300},
		{"edited, answered 299", http.Header{"Content-Length": {"100"}}, `{"requestId":"abc"}`, `which listen answered 299 whole: edited since`, 299},
		{"whole", http.Header{"Content-Length": {"2"}}, `{}`, "", 0},
		{"lower-case name", http.Header{"content-length": {"2"}}, `{}`, "", 0},
		{"no Content-Length (chunked)", http.Header{}, `{}`, "", 0},
		{"not a number", http.Header{"Content-Length": {"x"}}, `{}`, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: tt.header}
			rec.SetBody([]byte(tt.body))
			if tt.status != 0 {
				rec.Response = &capture.Response{Status: tt.status, Headers: http.Header{}}
			}
			line, err := capture.Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			s := &Replayer{Inputs: []capture.Input{{Name: "c.ndjson", R: strings.NewReader(string(line))}},
				Warn: func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) }}
			if reqs := s.Next(); len(reqs) != 1 || string(reqs[0].Body) != tt.body {
				t.Fatalf("sent %v, want the recorded body", reqs)
			}
			switch {
			case tt.want == "" && len(warnings) > 0:
				t.Errorf("warned %q", warnings)
			case tt.want != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tt.want)):
				t.Errorf("warnings %q, want one saying %s", warnings, tt.want)
			}
		})
	}
}

// TestReplayerLeftCountsOnlyCalls: the calls not started of a replay cut
// short are those it would have sent: a record it would skip as not HTTP
// (a method with a space, a header with CR LF) is no call left.
func TestReplayerLeftCountsOnlyCalls(t *testing.T) {
	t.Parallel()
	var b []byte
	for _, r := range []*capture.Record{
		{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC"},
		{Method: "PO ST", Query: "businessType=CREATE_RECEIVABLE_DOC"},
		{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"X-Inj": {"a\r\nX-Injected: 1"}}},
		{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC&x=a b"},
		{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", BodyOverLimit: 100},
		{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC"},
	} {
		if r.BodyOverLimit == 0 {
			r.SetBody([]byte(`{}`))
		}
		var err error
		if b, err = capture.Append(b, r); err != nil {
			t.Fatal(err)
		}
	}
	file := string(b)
	s := &Replayer{Inputs: []capture.Input{{Name: "c.ndjson", R: strings.NewReader(file)}}, Warn: func(string, ...any) {},
		Reopen: func(int) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }}
	if s.Next() == nil {
		t.Fatal("no first call")
	}
	if got, uncounted := s.Left(); got != 1 || uncounted {
		t.Errorf("Left %d, want 1 (the last record; the three between are not HTTP, the fourth kept no body)", got)
	}
}

// TestReplayerSkipsABodyOverTheLimit: a record of a body listen did not
// keep (over its --max-body) is no call to send again: an empty body in
// its place would be a call the sender never made, and it is not a body
// cut short either. It is skipped, named with its line and why, sized or
// chunked, and the replay is not complete.
func TestReplayerSkipsABodyOverTheLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		header http.Header
	}{
		{"Content-Length", http.Header{"Content-Length": {"2993"}, "Content-Type": {"application/json"}}},
		{"chunked", http.Header{"Content-Type": {"application/json"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b []byte
			for _, over := range []int64{100, 0} {
				rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: tt.header, BodyOverLimit: over}
				if over == 0 {
					rec.Headers = http.Header{"Content-Length": {"2"}}
					rec.SetBody([]byte(`{}`))
				} else {
					rec.SetBody(nil)
				}
				var err error
				if b, err = capture.Append(b, rec); err != nil {
					t.Fatal(err)
				}
			}
			var warnings []string
			s := &Replayer{Inputs: []capture.Input{{Name: "c.ndjson", R: bytes.NewReader(b)}},
				Warn: func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) }}
			var sent []string
			for reqs := s.Next(); reqs != nil; reqs = s.Next() {
				sent = append(sent, string(reqs[0].Body))
			}
			if len(sent) != 1 || sent[0] != `{}` {
				t.Errorf("sent bodies %q, want only the second record's", sent)
			}
			want := "c.ndjson:1: its body was over listen's --max-body of 100 bytes and was not kept; skipped"
			if len(warnings) != 1 || warnings[0] != want {
				t.Errorf("warnings %q, want %q", warnings, want)
			}
			if err := s.Skipped(); err == nil || !strings.HasPrefix(err.Error(), "1 line was skipped, not replayed") {
				t.Errorf("Skipped = %v, want 1 line skipped", err)
			}
		})
	}
}

// A record of a request listen's stop closed unread is skipped as no call
// to send, in words that say so: not as a request the HTTP server refused.
func TestRequestOfARecordClosedAtStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stopped bool
		want    string
	}{
		{true, "a request listen's stop closed unread as it arrived (why), so there is no call to send again"},
		{false, "a request the HTTP server refused before listen could read it (why), so there is no call to send again"},
	} {
		rec := &capture.Record{Capture: capture.VersionRejected, Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC",
			Rejected: &capture.Rejected{Reason: "why", ClosedAtStop: tc.stopped}}
		if _, _, err := request(rec, nil); err == nil || err.Error() != tc.want {
			t.Errorf("closedAtStop %v: %v, want %q", tc.stopped, err, tc.want)
		}
	}
}

// A record of a CONNECT (a client that took listen for an HTTP proxy,
// HTTPS_PROXY naming it) is no webhook call: replay sent it to --url's
// path as a CONNECT with the record's query. It is skipped, named with
// its line and the tunnel it asked for, and is no call left to send.
func TestReplayerSkipsAConnect(t *testing.T) {
	t.Parallel()
	var b []byte
	for _, rec := range []*capture.Record{
		{Method: http.MethodConnect, Path: "example.com:443", Headers: http.Header{}},
		{Method: http.MethodPost, Path: "/", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{}},
		{Method: http.MethodConnect, Path: "example.com:443", Headers: http.Header{}},
	} {
		rec.SetBody(nil)
		if rec.Method == http.MethodPost {
			rec.SetBody([]byte(`{}`))
		}
		var err error
		if b, err = capture.Append(b, rec); err != nil {
			t.Fatal(err)
		}
	}
	file := string(b)
	var warnings []string
	s := &Replayer{Inputs: []capture.Input{{Name: "c.ndjson", R: strings.NewReader(file)}},
		Warn:   func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) },
		Reopen: func(int) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }}
	reqs := s.Next()
	if len(reqs) != 1 || reqs[0].Method != http.MethodPost {
		t.Fatalf("first call %+v, want the POST of line 2", reqs)
	}
	want := `c.ndjson:1: a CONNECT to "example.com:443", a tunnel asked of listen as of an HTTP proxy, so there is no webhook call to send again; skipped`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
	if n, uncounted := s.Left(); n != 0 || uncounted {
		t.Errorf("Left %d (uncounted %v), want 0: the CONNECT of line 3 is no call", n, uncounted)
	}
}

// TestReplayerSaysWhenNoFreshRequestID: --new-request-id gives a call a
// fresh requestId only when it finds one to replace (a top-level string of
// a JSON object); a body where it finds none (a byte-order mark before the
// object, data after it, a compressed body that does not decode) goes out
// as recorded, with whatever id it holds, and the replay says so at its
// line. Found by ls45: a captured body with a BOM went out with its old
// requestId, silently, under --new-request-id, and a receiver's
// deduplication was tested with a re-delivery it was told was fresh.
func TestReplayerSaysWhenNoFreshRequestID(t *testing.T) {
	t.Parallel()
	const id = "5f0c7a36-2cf1-4c1e-9a4b-0d6a7f3e2b11"
	doc := `{"requestId":"` + id + `","businessType":5007,"data":{}}`
	for _, tt := range []struct {
		name, body string
		headers    http.Header
		warn       bool
	}{
		{"a JSON object", doc, nil, false},
		{"a byte-order mark first", "\ufeff" + doc, nil, true},
		{"data after the object", doc + "\r\n\x00trailing", nil, false}, // read up to the id only
		{"no requestId", `{"businessType":5007,"data":{}}`, nil, true},
		{"gzip that does not decode", "\x1f\x8b\x08\x00garbage", http.Header{"Content-Encoding": {"gzip"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: tt.headers}
			rec.SetBody([]byte(tt.body))
			line, err := capture.Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			s := &Replayer{Inputs: []capture.Input{{Name: "c.ndjson", R: strings.NewReader(string(line))}}, IDs: reqid.NewIDs(3),
				Warn: func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) }}
			reqs := s.Next()
			if len(reqs) != 1 {
				t.Fatalf("no call: %q", warnings)
			}
			fresh := !bytes.Contains(reqs[0].Body, []byte(id))
			said := len(warnings) == 1 && strings.HasPrefix(warnings[0], "c.ndjson:1: --new-request-id found no requestId to replace in its body")
			if tt.warn && (fresh && strings.Contains(tt.body, id) || !said) || !tt.warn && (!fresh || len(warnings) > 0) {
				t.Errorf("body %q: sent with a fresh id %v, warnings %q", reqs[0].Body, fresh, warnings)
			}
		})
	}
}

// TestReplayerRenewsEveryRequestID: a body that names requestId twice
// (validate's duplicate-key) is read two ways by receivers: the first
// (most readers, and replay's own column) or the last (Go's
// encoding/json). --new-request-id gives both the fresh id, so that every
// receiver reads a fresh one. Found by ls45: only the first was replaced,
// and a Go receiver read the captured id again under a call replay said
// was fresh.
func TestReplayerRenewsEveryRequestID(t *testing.T) {
	t.Parallel()
	const a, b = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	rec := &capture.Record{Method: "POST", Query: "businessType=CREATE_RECEIVABLE_DOC"}
	rec.SetBody([]byte(`{"requestId":"` + a + `","businessType":5007,"requestId":"` + b + `","data":{"requestId":"x"}}`))
	req, renewed, err := request(rec, reqid.NewIDs(3))
	if err != nil || !renewed {
		t.Fatalf("renewed %v, err %v", renewed, err)
	}
	want := `{"requestId":"` + req.RequestID + `","businessType":5007,"requestId":"` + req.RequestID + `","data":{"requestId":"x"}}`
	if string(req.Body) != want || req.RequestID == a || req.RequestID == b {
		t.Errorf("body %s, want %s", req.Body, want)
	}
}
