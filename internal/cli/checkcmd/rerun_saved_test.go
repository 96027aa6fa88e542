package checkcmd

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/check"
)

// TestSavedHeaders: a saved case's headers replace the report's, and a
// credential they put back where the report masks it is said (a rerun
// without --url is refused on it); the check's folder or the case file
// linked elsewhere is refused, as check writes no link.
func TestSavedHeaders(t *testing.T) {
	record := func(headers string) string {
		return `{"capture":1,"time":"2026-01-01T00:00:00Z","remote":"whsim check","method":"POST","path":"/","query":"businessType=CREATE_RECEIVABLE_DOC","headers":` + headers + `,"body":"x","bodyEncoding":"utf8"}` + "\n"
	}
	const check1 = "rejects-malformed"
	tests := []struct {
		name     string
		reported http.Header // the report's line
		saved    string      // the case file's headers
		link     string      // "folder" or "file": that is a link to a copy outside
		kept     string      // the credential said, "" for none
		err      string
	}{
		{name: "masked credential put back",
			reported: http.Header{"Authorization": {"Bearer ****"}, "Content-Type": {"application/json"}},
			saved:    `{"Authorization":["Bearer PRODSECRET"],"Content-Type":["application/json"]}`,
			kept:     "Authorization in "},
		{name: "credential the report lacks",
			reported: http.Header{},
			saved:    `{"X-Api-Key":["k1"]}`,
			kept:     "X-Api-Key in "},
		{name: "signature as reported",
			reported: http.Header{"Webhook-Signature": {"v1,abc="}, "Content-Type": {"application/json"}},
			saved:    `{"Webhook-Signature":["v1,abc="],"Content-Type":["application/json"]}`},
		{name: "no credential",
			reported: http.Header{"X-Tenant": {"a"}},
			saved:    `{"X-Tenant":["b"]}`},
		{name: "folder linked",
			reported: http.Header{},
			saved:    `{"X-Tenant":["a"]}`,
			link:     "folder",
			err:      check1 + ": a symbolic link"},
		{name: "file linked",
			reported: http.Header{},
			saved:    `{"X-Tenant":["a"]}`,
			link:     "file",
			err:      "not-json.ndjson: a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir, outside := filepath.Join(root, "cases"), filepath.Join(root, "outside")
			for _, d := range []string{dir, outside} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(outside, "not-json.ndjson"), []byte(record(tt.saved)), 0o600); err != nil {
				t.Fatal(err)
			}
			folder := filepath.Join(dir, check1)
			switch tt.link {
			case "folder":
				if err := os.Symlink(outside, folder); err != nil {
					t.Fatal(err)
				}
			case "file":
				if err := os.Mkdir(folder, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(outside, "not-json.ndjson"), filepath.Join(folder, "not-json.ndjson")); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.Rename(outside, folder); err != nil {
					t.Fatal(err)
				}
			}
			c := check.Failed{Check: check1, Name: "not-json", Want: "4xx", File: "cases/" + check1 + "/not-json.ndjson", Header: tt.reported}
			kept, err := savedHeaders(context.Background(), dir, &c)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.kept == "" && kept != "" || !strings.HasPrefix(kept, tt.kept) {
				t.Errorf("kept %q, want %q...", kept, tt.kept)
			}
			if c.Header.Get("Content-Type") == "" && strings.Contains(tt.saved, "Content-Type") {
				t.Errorf("headers %v: not the saved ones", c.Header)
			}
		})
	}
}
