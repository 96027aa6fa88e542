package inspect

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/validate"
)

// tooLargeStore is listen --ui's store of window calls over a capture
// whose first record is a call with a body over input.Max (70 MiB: listen
// --max-body 100MiB took it), which no reader of whsim's reads back, then
// n-1 calls of a few bytes. The big call is fed as listen's feed gives
// one over its queue's bytes: without its body.
func tooLargeStore(t *testing.T, window, n int) *Store {
	t.Helper()
	path := tooLargeFile(t)
	file, _, err := capture.OpenFile(path, capture.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	s := newFileStore(path, window, func(*capture.Record) []validate.Finding { return []validate.Finding{typeFinding} })
	first := record(1, "CREATE_RECEIVABLE_DOC", nil, 200)
	const big = 70 << 20
	c := newCallWithID(0, first, []byte("x"), []validate.Finding{typeFinding}).light()
	c.Size = big
	s.add(c, 0)
	for i := 2; i <= n; i++ {
		rec := record(i, "CREATE_RECEIVABLE_DOC", []byte(fmt.Sprintf(`{"requestId":"r-%d"}`, i)), 200)
		off, err := file.Write(rec)
		if err != nil {
			t.Fatal(err)
		}
		s.add(newCall(0, rec, nil, nil), off)
	}
	return s
}

// tooLargeFile writes a capture whose first record, at byte 0, is a call
// with a body of 70 MiB, and returns its path.
func tooLargeFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, `{"capture":1,"time":"2026-11-23T01:00:01Z","remote":"127.0.0.1:5000","method":"POST","path":"/hook","query":"businessType=CREATE_RECEIVABLE_DOC","headers":{},"body":"`)
	w.WriteString(strings.Repeat("x", 70<<20))
	fmt.Fprint(w, `","bodyEncoding":"utf8","response":{"status":200,"body":"","bodyEncoding":"utf8"}}`+"\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A call whose record is larger than whsim reads back (input.Max) is
// listed, open, searched past and exported past as too large to show,
// with what listen knew of it: a listing, a search or an export that
// reached it failed whole (500, "line 1 is larger than 64 MiB"), so the
// page lost it and every call beside it.
func TestACallTooLargeToReadBackIsListed(t *testing.T) {
	if input.Max != 64<<20 {
		t.Fatalf("input.Max %d: the record written is no longer over it", input.Max)
	}
	for _, tc := range []struct {
		name   string
		window int
	}{
		{"in the window, its body shed", 10},
		{"past the window", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t, tooLargeStore(t, tc.window, 3), func(context.Context, *capture.Record, string) Replayed {
				t.Error("replayed a call too large to read back")
				return Replayed{}
			})
			for _, q := range []string{"", "?q=r-", "?q=nothing-has-this", "?verdict=invalid", "?limit=1&before=2"} {
				var calls []summary
				resp := get(t, srv.URL+"/api/calls"+q, &calls)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET /api/calls%s: %d", q, resp.StatusCode)
				}
				// A search lists it too: its body could not be searched, and
				// "no match" would say it was.
				if len(calls) == 0 {
					t.Fatalf("GET /api/calls%s: none listed", q)
				}
				last := calls[len(calls)-1]
				if last.ID != 1 || !last.TooLarge || last.Verdict != "invalid" || last.Status != 200 || last.Size != 70<<20 {
					t.Errorf("GET /api/calls%s: %+v, want call 1 listed too large, invalid, 200, 70 MiB", q, calls)
				}
			}
			var d detail
			if resp := get(t, srv.URL+"/api/calls/1", &d); resp.StatusCode != http.StatusOK || !d.TooLarge || d.BodyGone ||
				!strings.Contains(d.NotKept, "larger than the 64 MiB whsim reads back") || d.Curl != "" || d.Send != "" || len(d.Findings) != 1 {
				t.Errorf("GET /api/calls/1: %d %+v, want it too large to show, with its finding and no command", resp.StatusCode, d)
			}
			for _, path := range []string{"/api/calls/1/raw", "/api/diff?a=1&b=2"} {
				var out map[string]any
				if resp := get(t, srv.URL+path, &out); resp.StatusCode != http.StatusGone || !strings.Contains(fmt.Sprint(out["error"]), "too large") {
					t.Errorf("GET %s: %d %v, want 410 saying it is too large", path, resp.StatusCode, out)
				}
			}
			resp, err := apiPost(srv.URL+"/api/calls/1/replay", "application/json", strings.NewReader(`{"url":"http://127.0.0.1:9/x"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusGone {
				t.Errorf("replay: %d, want 410", resp.StatusCode)
			}
			resp, err = apiGet(srv.URL + "/api/export?format=ndjson")
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) != 2 || !json.Valid([]byte(lines[0])) || !strings.Contains(lines[0], `r-2`) {
				t.Errorf("export: %d lines, want the 2 calls it can give whole:\n%.300s", len(lines), out)
			}
		})
	}
}

// whsim inspect of a capture with a record larger than it reads lists that
// record, by its line, as too large to show, rather than leave it out of
// the page (only the terminal said it was skipped).
func TestLoadFileListsARecordTooLarge(t *testing.T) {
	path := tooLargeFile(t)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	line, err := capture.Append(nil, record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2"}`), 200))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, skipped, err := LoadFile(context.Background(), path, nil, 10, func(*capture.Record) []validate.Finding { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if s.Last() != 2 || len(skipped) != 1 || !skipped[0].Listed || skipped[0].Line != 1 {
		t.Fatalf("%d calls, skipped %+v; want 2, line 1 listed", s.Last(), skipped)
	}
	srv := newTestServer(t, s, nil)
	var calls []summary
	get(t, srv.URL+"/api/calls", &calls)
	if len(calls) != 2 || calls[1].ID != 1 || !calls[1].TooLarge || ridOf(calls[0]) != "r-2" {
		t.Fatalf("listed %+v, want call 1 too large and call 2", calls)
	}
	var d detail
	if resp := get(t, srv.URL+"/api/calls/1", &d); resp.StatusCode != http.StatusOK ||
		!strings.Contains(d.NotKept, "line 1 of "+path+" is larger than the 64 MiB whsim reads back") || d.Curl != "" {
		t.Errorf("GET /api/calls/1: %d %+v, want it too large to show, by its line", resp.StatusCode, d)
	}
}

// A call listen could not record (its capture write failed) is in no
// file: its body, over input.Max and out of memory, is gone, not "too
// large" at a byte of the file.
func TestACallNotRecordedIsNotTooLarge(t *testing.T) {
	s := newFileStore(filepath.Join(t.TempDir(), "calls.ndjson"), 10, nil)
	c := newCallWithID(0, record(1, "CREATE_RECEIVABLE_DOC", nil, 500), []byte("x"), nil).light()
	c.Size = 70 << 20
	s.add(c, noOffset)
	got, err := s.Get(1)
	if err != nil || !got.BodyGone() || got.tooLarge != "" {
		t.Errorf("Get(1): %+v, %v; want its body gone, not too large", got, err)
	}
}
