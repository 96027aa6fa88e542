package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

// A debug endpoint that echoes its request has its answer, and the
// reasons that quote it, show the probe's credentials masked: its header's
// value and its URL's token; the document's code filled in for {code},
// though code names a credential, stays.
func TestProbeAnswerMasksItsCredentials(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		status int
		want   string
	}{
		{"an error status", http.StatusInternalServerError, "got 500, want 200 with a JSON object or 404: refused Bearer ****"},
		{"no JSON", http.StatusOK, `answered "refused Bearer ****; url /probe?code=SKD-1&token=****"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprintf(w, "refused %s; url %s", r.Header.Get("Authorization"), r.URL.RequestURI())
			}))
			defer srv.Close()
			p, err := ParseURL(srv.URL+"/probe?code={code}&token=pr0be-t0ken", srv.Client(), http.Header{"Authorization": {"Bearer pr0be-s3cr3t"}})
			if err != nil {
				t.Fatal(err)
			}
			a, err := p.Ask(context.Background(), Question{Kind: spec.Receipt, Code: "SKD-1", Event: "CREATE_RECEIVABLE_DOC"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			for _, text := range []string{err.Error(), a.Raw} {
				if strings.Contains(text, "pr0be-") {
					t.Errorf("it says %q", text)
				}
			}
		})
	}
}
