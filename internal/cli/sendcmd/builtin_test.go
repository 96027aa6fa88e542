package sendcmd

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/term"
)

// The built-in receiver answers on loopback, prints the first calls as
// listen would and tallies all of them when closed.
func TestBuiltin(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	b, err := startBuiltin(&out, term.Style{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.URL, "http://127.0.0.1:") {
		t.Errorf("URL %q, want loopback", b.URL)
	}
	client := &http.Client{}
	for range builtinShown + 1 {
		resp, err := client.Post(b.URL+"?businessType=CREATE_RECEIVABLE_DOC", "application/json",
			strings.NewReader(`{"requestId":"r","businessType":5007,"data":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("status %d", resp.StatusCode)
		}
	}
	client.CloseIdleConnections()
	b.Close()
	got := out.String()
	if n := strings.Count(got, "POST /webhook  CREATE_RECEIVABLE_DOC"); n != builtinShown {
		t.Errorf("%d call lines, want %d\n%s", n, builtinShown, got)
	}
	for _, want := range []string{"built-in receiver saw: 21 calls", "shown:      the first 20", "by status:  200 21"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
