package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// A call that left the page's window of 1,000 in `listen --capture --ui`
// is still listed and opened, read back from the capture file with the
// findings listen gave it (a protocol finding included).
func TestListenUIReadsOlderCallsFromTheCapture(t *testing.T) {
	l := startListenUI(t)
	body := bytes.TrimSpace(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--output", "ndjson"))
	first := bytes.Replace(body, []byte(`"requestId":"`), []byte(`"requestId":"first-`), 1)
	l.post(t, "/?businessType=CREATE_RECEIVABLE_DOC", first, http.Header{"Content-Type": {"text/plain"}})
	const calls = 1005
	for range calls - 1 {
		l.post(t, "/?businessType=CREATE_RECEIVABLE_DOC", body, nil)
	}
	getJSON := func(path string, out any) int {
		t.Helper()
		resp := l.get(t, path)
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.StatusCode
	}
	// The page's store is fed off the receiver's path: wait for it.
	for deadline := time.Now().Add(30 * time.Second); ; {
		var info struct{ Last int }
		if getJSON("api/info", &info); info.Last == calls {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page has %d calls, want %d", info.Last, calls)
		}
		time.Sleep(50 * time.Millisecond)
	}
	type call struct {
		ID        int
		RequestID string
		Verdict   string
		Findings  []struct{ Rule string } `json:"findingList"`
	}
	var list []call
	getJSON("api/calls?before=3", &list)
	if len(list) != 2 || list[0].ID != 2 || list[1].ID != 1 || !bytes.HasPrefix([]byte(list[1].RequestID), []byte("first-")) {
		t.Fatalf("GET /api/calls?before=3 = %+v, want calls 2 and 1", list)
	}
	var c call
	if status := getJSON("api/calls/1", &c); status != 200 {
		t.Fatalf("GET /api/calls/1: %d", status)
	}
	if c.Verdict != "invalid" || len(c.Findings) == 0 || c.Findings[0].Rule != "http-content-type" {
		t.Errorf("call 1: verdict %s, findings %+v; want the content type flagged", c.Verdict, c.Findings)
	}
	if status := getJSON(fmt.Sprintf("api/calls/%d", calls), &c); status != 200 || c.Verdict != "valid" {
		t.Errorf("GET /api/calls/%d: %d, %+v", calls, status, c)
	}
}
