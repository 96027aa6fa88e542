package inspect

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/validate"
)

// Start serves the page on the address bound, named in URL, until the
// context ends; an address it cannot bind is an error.
func TestStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ui, err := Start(ctx, "127.0.0.1:0", Options{Store: NewStore(1), Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ui.URL, "http://127.0.0.1:") || ui.Base != receiver.URLOf(ui.Addr)+"/" || ui.URL != ui.Base+"?token="+testToken || ui.Token != testToken {
		t.Errorf("URL %q, Addr %v", ui.URL, ui.Addr)
	}
	var info map[string]any
	if resp := get(t, ui.Base+"api/info", &info); resp.StatusCode != http.StatusOK {
		t.Errorf("GET api/info: %s", resp.Status)
	}
	cancel()
	if err := ui.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}
	if _, err := Start(context.Background(), "nonsense", Options{}); err == nil {
		t.Error("Start(nonsense) served")
	}
}

// A running receiver's store reads calls back from its capture file when
// it has one, and its feed takes the receiver's calls as they are.
func TestListenStoreAndFeed(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "calls.ndjson")} {
		s := NewListenStore(path, nil)
		if len(s.ring) != listenWindow || (s.older != nil) != (path != "") {
			t.Errorf("capture %q: window %d, reads back %v", path, len(s.ring), s.older != nil)
		}
		f := s.NewFeed()
		body := []byte(`{"requestId":"r-9","businessType":4010,"data":{}}`)
		f.Observe(&receiver.Call{Record: record(1, "CREATE_PURCHASE_ORDER_INVOICE", body, 200), Body: body, Offset: -1,
			Findings: []validate.Finding{typeFinding}})
		f.Close()
		c, err := s.Get(1)
		if err != nil || string(c.Body()) != string(body) || s.Last() != 1 {
			t.Errorf("capture %q: Get(1) = %v, %v; last %d", path, c, err, s.Last())
		}
	}
}
