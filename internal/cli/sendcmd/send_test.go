package sendcmd

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/delivery"
	"github.com/whsim/whsim/internal/cli/payloadflags"
)

func TestSendRetriesReported(t *testing.T) {
	t.Chdir(t.TempDir())
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n < 3 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(429)
		}
	}))
	defer srv.Close()
	var waits []time.Duration
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, cmdutil.Build{}, time.Now)
	opts := &sendOptions{Payloads: payloadflags.Payloads{Events: []string{"CREATE_RECEIVABLE_DOC"}, Shape: "described"},
		Flags: delivery.Flags{URL: srv.URL, Timeout: time.Second, Retries: 3, Concurrency: 1, ExpectStatus: "2xx", Output: "text"},
		Count: 1,
		sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		}}
	if err := runSend(context.Background(), a, opts); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 2 || waits[0] != 2*time.Second || !strings.Contains(errb.String(), "attempt 1: 429, retrying in 2s") ||
		!strings.Contains(out.String(), "after 3 attempts") {
		t.Errorf("waits %v\nstderr %s\nstdout %s", waits, errb.String(), out.String())
	}
}
