package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/validate"
)

// listen --ui holds its window by bytes as well as by calls: 450 bodies
// of 10 MB once took 4.4 GB. Here 450 bodies of 256 KiB against a bound
// of 2 MiB: the window holds no more than the bound and the newest call,
// whatever the count; every call keeps its summary, and with a capture
// file every body is read back whole.
func TestListenWindowIsBoundedByBytes(t *testing.T) {
	const (
		calls = 450
		size  = 256 << 10
		bound = 2 << 20
	)
	for _, withFile := range []bool{true, false} {
		t.Run(fmt.Sprint("capture=", withFile), func(t *testing.T) {
			var path string
			var file *capture.File
			if withFile {
				path = filepath.Join(t.TempDir(), "calls.ndjson")
				var err error
				if file, _, err = capture.OpenFile(path, capture.SyncNever); err != nil {
					t.Fatal(err)
				}
				defer file.Close()
			}
			s := NewListenStore(path, func(*capture.Record) []validate.Finding { return nil }).LimitBytes(bound)
			f := s.NewFeed()
			most := int64(0)
			for i := 1; i <= calls; i++ {
				body := bytes.Repeat([]byte{'x'}, size)
				copy(body, fmt.Sprintf(`{"requestId":"r-%d","x":"`, i))
				body[size-2], body[size-1] = '"', '}'
				rec := record(i, "CREATE_RECEIVABLE_DOC", body, 200)
				off := int64(-1)
				if file != nil {
					var err error
					if off, err = file.Write(rec); err != nil {
						t.Fatal(err)
					}
				}
				f.Offer(rec, off, body, fmt.Sprintf("r-%d", i), nil)
				if i%50 == 0 {
					f.Close() // store what is queued, to count it
					most = max(most, s.Held())
					f = s.NewFeed()
				}
			}
			f.Close()
			most = max(most, s.Held())
			// A call counts its record's body and its own copy: twice its size.
			if limit := int64(bound + 2*size + 4*callOverhead); most > limit {
				t.Errorf("the window held %d bytes, bound %d", most, limit)
			}
			if s.Last() != calls {
				t.Fatalf("last %d", s.Last())
			}
			list, _, err := s.Newest(t.Context(), 0, filter{}, 1000)
			if err != nil || len(list) != calls || list[calls-1].Size != size || list[calls-1].RequestID != "r-1" {
				t.Fatalf("listing: %d calls, %v", len(list), err)
			}
			c, err := s.Get(1)
			if err != nil {
				t.Fatal(err)
			}
			if withFile {
				if len(c.Body()) != size || c.BodyGone() || c.Record.Response.Body == "" {
					t.Errorf("call 1 read back: %d bytes, gone %v", len(c.Body()), c.BodyGone())
				}
			} else if !c.BodyGone() || c.Body() != nil || c.Size != size || c.RequestID != "r-1" {
				t.Errorf("call 1 without a file: gone %v, body %d, size %d", c.BodyGone(), len(c.Body()), c.Size)
			}
			if c, _ := s.Get(calls); len(c.Body()) != size {
				t.Errorf("the newest call is kept whole: %d bytes", len(c.Body()))
			}
		})
	}
}

// A call shed from the window holds none of its body's memory, as listen
// adds it: its record shares the body's bytes (capture.Record.ShareBody).
// The light copy cleared Body but kept the record's note of the shared
// string, and with it every body: listen --ui grew by each call's size,
// 120 bodies of 4 MiB 511 MiB against its bound of 64 MiB. Whether a body
// is still reachable is asked of the garbage collector (a weak pointer
// after a collection), not measured.
func TestAShedCallHoldsNoneOfItsBody(t *testing.T) {
	const size = 512 << 10
	s := NewListenStore("", func(*capture.Record) []validate.Finding { return nil }).LimitBytes(1 << 20)
	f := s.NewFeed()
	var bodies []weak.Pointer[byte]
	for i := 1; i <= 8; i++ {
		body := bytes.Repeat([]byte{'x'}, size)
		copy(body, fmt.Sprintf(`{"requestId":"r-%d","x":"`, i))
		body[size-2], body[size-1] = '"', '}'
		rec := record(i, "CREATE_RECEIVABLE_DOC", nil, 200)
		rec.ShareBody(body)
		bodies = append(bodies, weak.Make(&body[0]))
		f.Offer(rec, -1, body, fmt.Sprintf("r-%d", i), nil)
	}
	f.Close()
	runtime.GC()
	for i, b := range bodies[:4] {
		if b.Value() != nil {
			t.Errorf("call %d, shed from the window, still holds its body", i+1)
		}
	}
	if c, err := s.Get(8); err != nil || len(c.Body()) != size {
		t.Errorf("the newest call is kept whole: %v", err)
	}
	runtime.KeepAlive(s)
}

// A feed's queue holds no more than FeedQueueBytes of bodies, however long
// the store keeps it waiting: the calls past it are queued without.
func TestFeedQueueIsBoundedByBytes(t *testing.T) {
	s := NewStore(100)
	f := s.NewFeed()
	s.mu.Lock() // the store is busy: the feed's goroutine cannot store
	body := bytes.Repeat([]byte{'x'}, 4<<20)
	most := int64(0)
	for i := range 40 {
		if !f.Offer(record(i, "E", body, 200), -1, body, "", nil) {
			t.Fatal("refused a call")
		}
		f.mu.Lock()
		most = max(most, f.held)
		f.mu.Unlock()
	}
	s.mu.Unlock()
	f.Close()
	if most > feedQueueBytes+8<<20 {
		t.Errorf("the queue held %d bytes, bound %d", most, feedQueueBytes)
	}
	if s.Last() != 40 || s.Dropped() != 0 {
		t.Errorf("last %d, dropped %d", s.Last(), s.Dropped())
	}
	last, _ := s.Get(40)
	if last.Size != len(body) {
		t.Errorf("a call queued without its body: size %d", last.Size)
	}
}

// forwardedCall is a receipt call listen forwarded, answered status.
func forwardedCall(i int, event, id, doc string, status int) *capture.Record {
	rec := record(i, event, []byte(`{"requestId":"`+id+`","businessType":5007,"data":{"收款单":{"收款单编号":"`+doc+`"}}}`), status)
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:3000/erp", Status: status}
	return rec
}

// The inspector shows what listen prints: the FLAG lines (an invalid call
// accepted, a re-delivery refused), the calls before with the same
// requestId, and the calls about the same document, for calls in the
// window and for calls read back from the file alike.
func TestFlagsRepeatsAndDocumentLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	var file []byte
	invalid := []validate.Finding{typeFinding}
	recs := []struct {
		rec *capture.Record
		fs  []validate.Finding
	}{
		{forwardedCall(1, "CREATE_RECEIVABLE_DOC", "a", "SKD1", 200), nil},
		{forwardedCall(2, "CREATE_RECEIVABLE_DOC", "b", "SKD2", 200), invalid}, // accepted though invalid
		{forwardedCall(3, "CREATE_RECEIVABLE_DOC", "a", "SKD1", 409), nil},     // re-delivery refused
		{forwardedCall(4, "ABANDON_RECEIVABLE_DOC", "c", "SKD1", 200), nil},    // the void of SKD1
		{forwardedCall(5, "CREATE_RECEIVABLE_DOC", "d", "SKD3", 200), nil},
		{forwardedCall(6, "CREATE_RECEIVABLE_DOC", "e", "SKD4", 500), nil}, // refused
		{forwardedCall(7, "CREATE_RECEIVABLE_DOC", "e", "SKD4", 500), nil}, // refused again: the call, not a re-delivery
	}
	for _, r := range recs {
		file, _ = capture.Append(file, r.rec)
	}
	writeFile(t, path, file)
	byReq := map[string][]validate.Finding{}
	for _, r := range recs {
		b, _ := r.rec.RequestBody()
		byReq[string(b)] = r.fs
	}
	check1 := func(rec *capture.Record) []validate.Finding {
		b, _ := rec.RequestBody()
		return byReq[string(b)]
	}
	for _, window := range []int{10, 1} { // in memory; read back from the file
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			s := loadFile(t, path, window, check1)
			srv := newTestServer(t, s, nil)
			detail := func(id int) detail {
				var d detail
				get(t, srv.URL+fmt.Sprintf("/api/calls/%d", id), &d)
				return d
			}
			d2, d3 := detail(2), detail(3)
			if len(d2.FlagList) != 1 || d2.FlagList[0].Check != receiver.RejectsMalformed {
				t.Errorf("call 2 flags %+v", d2.FlagList)
			}
			if len(d3.FlagList) != 1 || d3.FlagList[0].Check != receiver.Duplicates || d3.RepeatOf != 1 {
				t.Errorf("call 3 flags %+v, repeat of %d", d3.FlagList, d3.RepeatOf)
			}
			if d7 := detail(7); len(d7.FlagList) != 0 || d7.RepeatOf != 6 {
				t.Errorf("call 7, refused as call 6 was: flags %+v, repeat of %d; want none, of 6", d7.FlagList, d7.RepeatOf)
			}
			if d1 := detail(1); len(d1.FlagList) != 0 || d1.RepeatOf != 0 || fmt.Sprint(d1.Deliveries) != "[{1 CREATE_RECEIVABLE_DOC} {3 CREATE_RECEIVABLE_DOC}]" {
				t.Errorf("call 1: flags %v, repeat of %d, deliveries %v", d1.FlagList, d1.RepeatOf, d1.Deliveries)
			}
			want := "[{1 CREATE_RECEIVABLE_DOC} {3 CREATE_RECEIVABLE_DOC} {4 ABANDON_RECEIVABLE_DOC}]"
			for _, id := range []int{1, 3, 4} {
				if d := detail(id); fmt.Sprint(d.Document) != want || d.DocNumber != "receipt document SKD1" {
					t.Errorf("call %d: document %q %v, want %s", id, d.DocNumber, d.Document, want)
				}
			}
			if d := detail(5); len(d.Document) != 0 || len(d.Deliveries) != 0 {
				t.Errorf("call 5 is alone: %v %v", d.Document, d.Deliveries)
			}
			var list []summary
			get(t, srv.URL+"/api/calls", &list)
			marks := ""
			for _, c := range list {
				marks += fmt.Sprintf("%d:%d/%d ", c.ID, c.RepeatOf, c.Flags)
			}
			if marks != "7:6/0 6:0/0 5:0/0 4:0/0 3:1/1 2:0/1 1:0/0 " {
				t.Errorf("list marks (id:repeatOf/flags) %s", marks)
			}
		})
	}
}

// An invoice's document is its code, the same in its create and its
// audit; an empty code falls back to the invoice number.
func TestDocKeyFromTheSpec(t *testing.T) {
	paths := docPaths()
	for _, tt := range []struct{ event, body, want string }{
		{"CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"x","data":{"code":"PI-7"}}`, "purchase invoice PI-7"},
		{"AUDIT_PURCHASE_ORDER_INVOICE", `{"data":{"status":"PASS","code":"PI-7"}}`, "purchase invoice PI-7"},
		{"CREATE_PURCHASE_ORDER_INVOICE", `{"data":{"code":"","invoiceCode":"0123"}}`, "purchase invoice 0123"},
		{"CREATE_RECEIVABLE_DOC", `{"data":{"收款单":{"收款单编号":"SKD1"}}}`, "receipt document SKD1"},
		{"ABANDON_RECEIVABLE_DOC", `{"data":{"收款单":{"收款单编号":42}}}`, "receipt document 42"},
		{"CREATE_RECEIVABLE_DOC", `{"data":{"收款单":{"收款单编号":{"x":1}}}}`, ""},
		{"UNKNOWN", `{"data":{"code":"PI-7"}}`, ""},
		{"CREATE_RECEIVABLE_DOC", `not json`, ""},
	} {
		if got := docKey(paths, tt.event, []byte(tt.body)); got != tt.want {
			t.Errorf("docKey(%s, %s) = %q, want %q", tt.event, tt.body, got, tt.want)
		}
	}
}

// The replay box starts at --forward-to's URL, then at the last target
// replayed to in this run; with neither it is empty, never an address of
// whsim's choosing.
func TestReplayTarget(t *testing.T) {
	replayer := func(_ context.Context, _ *capture.Record, u string) Replayed { return Replayed{URL: u, Status: 200} }
	for _, tt := range []struct{ forward, replayTo, before, after string }{
		{"", "http://127.0.0.1:9/a", "", "http://127.0.0.1:9/a"},
		{"http://127.0.0.1:3000/erp", "http://127.0.0.1:9/a", "http://127.0.0.1:3000/erp", "http://127.0.0.1:9/a"},
	} {
		srv := httptest.NewServer(newHandler(Options{Token: testToken, Store: newTestStore(), Replay: replayer, ForwardTo: tt.forward}))
		var info struct{ ReplayTarget string }
		get(t, srv.URL+"/api/info", &info)
		if info.ReplayTarget != tt.before {
			t.Errorf("forward %q: replay target %q, want %q", tt.forward, info.ReplayTarget, tt.before)
		}
		resp, err := apiPost(srv.URL+"/api/calls/1/replay", "application/json", strings.NewReader(`{"url":"`+tt.replayTo+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		get(t, srv.URL+"/api/info", &info)
		if info.ReplayTarget != tt.after {
			t.Errorf("after a replay: target %q, want %q", info.ReplayTarget, tt.after)
		}
		srv.Close()
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Without a capture file, calls whose bodies left memory are left out of
// an NDJSON export (a record without its body would replay as another
// call) and said to lack them in a HAR one.
func TestExportOfCallsWithoutTheirBodies(t *testing.T) {
	s := NewStore(10).LimitBytes(1)
	for i := 1; i <= 3; i++ {
		s.Add(record(i, "E", []byte(fmt.Sprintf(`{"requestId":"r-%d"}`, i)), 200), nil)
	}
	srv := newTestServer(t, s, nil)
	resp, err := apiGet(srv.URL + "/api/export?format=ndjson")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(b), "\n"); n != 1 || !strings.Contains(string(b), "r-3") {
		t.Errorf("ndjson export: %d records, want the newest only: %s", n, b)
	}
	var har har
	get(t, srv.URL+"/api/export?format=har", &har)
	if len(har.Log.Entries) != 3 || !strings.Contains(har.Log.Entries[0].Comment, "left the inspector's memory") || har.Log.Entries[2].Comment != "" {
		t.Errorf("har entries %+v", har.Log.Entries)
	}
}

// docKey reads bodies from the network: it never panics, and what it
// returns is bounded.
func FuzzDocKey(f *testing.F) {
	f.Add("CREATE_RECEIVABLE_DOC", `{"data":{"收款单":{"收款单编号":"SKD1"}}}`)
	f.Add("AUDIT_PURCHASE_ORDER_INVOICE", `{"data":{"code":"","invoiceCode":"0123"}}`)
	f.Add("CREATE_PURCHASE_ORDER_INVOICE", `{"data":{"code":"\u0041\ud800"}}`)
	f.Add("ABANDON_RECEIVABLE_DOC", `{"data":{"收款单":[1,2]}}`)
	paths := docPaths()
	f.Fuzz(func(t *testing.T, event, body string) {
		if k := docKey(paths, event, []byte(body)); len(k) > 250 {
			t.Errorf("docKey = %d bytes", len(k))
		}
	})
}

// A call's detail gives its FLAG lines as "flags" (the name), a
// list, where a summary's "flags" is their count.
func TestDetailFlagsIsTheList(t *testing.T) {
	t.Parallel()
	d := detail{summary: summary{Flags: 1}, FlagList: []receiver.Flag{{Check: receiver.Duplicates, Reason: "r"}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"flags":[{"check":"duplicates","reason":"r"}]`) || strings.Contains(string(b), `"flags":1`) {
		t.Errorf("detail JSON %s", b)
	}
}

// A re-delivery refused whose accepted original came before it and was
// answered after it (listen printed the refusal's line first) is flagged
// on the original's line, "of call #N": the page shows that flag there,
// with the call it judges, as listen printed it, for a call in the
// window and one read back from the file alike. The page kept each
// call's own flags only, and the flag was on no page (found by fw46).
func TestFlagOfAnotherCallShown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	refused := forwardedCall(2, "CREATE_RECEIVABLE_DOC", "a", "SKD1", 409) // came second, answered first
	original := forwardedCall(1, "CREATE_RECEIVABLE_DOC", "a", "SKD1", 200)
	other := forwardedCall(3, "CREATE_RECEIVABLE_DOC", "b", "SKD2", 200)
	var file []byte
	for _, r := range []*capture.Record{refused, original, other} {
		file, _ = capture.Append(file, r)
	}
	writeFile(t, path, file)
	for _, window := range []int{10, 1} { // in memory; read back from the file
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			s := loadFile(t, path, window, func(*capture.Record) []validate.Finding { return nil })
			srv := newTestServer(t, s, nil)
			var d1, d2 detail
			get(t, srv.URL+"/api/calls/1", &d1)
			get(t, srv.URL+"/api/calls/2", &d2)
			if len(d1.FlagList) != 0 {
				t.Errorf("call 1 (the refusal, printed first): flags %+v, want none under its line", d1.FlagList)
			}
			if len(d2.FlagList) != 1 || d2.FlagList[0].Check != receiver.Duplicates || d2.FlagList[0].Of != 1 || !strings.Contains(d2.FlagList[0].Reason, "re-delivery #1") {
				t.Errorf("call 2 (the original): flags %+v, want duplicates of call 1", d2.FlagList)
			}
			var list []summary
			get(t, srv.URL+"/api/calls", &list)
			marks := ""
			for _, c := range list {
				marks += fmt.Sprintf("%d:%d ", c.ID, c.Flags)
			}
			if marks != "3:0 2:1 1:0 " {
				t.Errorf("list marks (id:flags) %s, want call 2's flag counted", marks)
			}
		})
	}
}
