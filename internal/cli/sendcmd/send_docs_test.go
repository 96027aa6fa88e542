package sendcmd_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/whsim/whsim/internal/cli/clitest"
)

// docCounter is a receiver that keys every call on its document, as the
// spec asks a receiver to: an invoice's invoiceCode (and its code when it
// has one), a receipt's 收款单编号. It decodes the bodies itself, so that
// it does not share whsim's own reading of them.
type docCounter struct {
	mu     sync.Mutex
	calls  int
	docs   map[string]map[string]int // event -> number -> calls
	codes  map[string]map[string]int // event -> invoice code -> calls
	bodies []string
}

func newDocCounter(t *testing.T) (*docCounter, *httptest.Server) {
	dc := &docCounter{docs: map[string]map[string]int{}, codes: map[string]map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var env struct {
			Data struct {
				Code        *string `json:"code"`
				InvoiceCode string  `json:"invoiceCode"`
				Receipt     struct {
					Number string `json:"收款单编号"`
				} `json:"收款单"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			w.WriteHeader(400)
			return
		}
		ev := r.URL.Query().Get("businessType")
		num := env.Data.Receipt.Number
		if env.Data.Code != nil {
			num = env.Data.InvoiceCode
		}
		dc.mu.Lock()
		defer dc.mu.Unlock()
		dc.calls++
		dc.bodies = append(dc.bodies, string(b))
		add := func(m map[string]map[string]int, k string) {
			if m[ev] == nil {
				m[ev] = map[string]int{}
			}
			m[ev][k]++
		}
		add(dc.docs, num)
		if env.Data.Code != nil && *env.Data.Code != "" {
			add(dc.codes, *env.Data.Code)
		}
	}))
	t.Cleanup(srv.Close)
	return dc, srv
}

var summaryDocs = regexp.MustCompile(`(?m)^sent (\d+)  succeeded \d+  failed 0  documents (\d+)  duplicates (\d+)  `)

// send --count N sends N documents of each event, however far N goes past
// the pool of bodies built before the run, and says so apart from the
// calls; a scenario's --count counts its documents.
func TestSendCountIsDistinctDocuments(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		name   string
		args   []string
		calls  int
		events map[string]int // event -> distinct documents
		docs   string         // the summary's
		dups   bool           // the summary counts duplicates
	}{
		{"events", []string{"--event", "all", "--count", "500", "--concurrency", "4"}, 2000,
			map[string]int{"CREATE_PURCHASE_ORDER_INVOICE": 500, "AUDIT_PURCHASE_ORDER_INVOICE": 500, "CREATE_RECEIVABLE_DOC": 500, "ABANDON_RECEIVABLE_DOC": 500}, "2000", false},
		{"receipt lifecycle", []string{"--scenario", "receipt-lifecycle", "--count", "1000", "--concurrency", "4"}, 2000,
			map[string]int{"CREATE_RECEIVABLE_DOC": 1000, "ABANDON_RECEIVABLE_DOC": 1000}, "1000", false},
		{"sample shape, duplicates", []string{"--event", "CREATE_RECEIVABLE_DOC", "--shape", "sample", "--count", "700", "--duplicate", "0.2", "--seed", "3"}, -1,
			map[string]int{"CREATE_RECEIVABLE_DOC": 700}, "700", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc, srv := newDocCounter(t)
			code, stdout, stderr := clitest.Run(t, append([]string{"send", "--url", srv.URL, "--each=false"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if tt.calls > 0 && dc.calls != tt.calls {
				t.Errorf("%d calls, want %d", dc.calls, tt.calls)
			}
			for ev, want := range tt.events {
				if got := len(dc.docs[ev]); got != want {
					t.Errorf("%s: %d distinct documents, want %d", ev, got, want)
				}
				for num, n := range dc.codes[ev] {
					if n > 1 && !tt.dups {
						t.Errorf("%s: code %s in %d calls", ev, num, n)
					}
				}
			}
			m := summaryDocs.FindStringSubmatch(stdout)
			if m == nil || m[2] != tt.docs || (m[3] != "0") != tt.dups || m[1] != strconv.Itoa(dc.calls) {
				t.Errorf("summary %q; want %d calls, %s documents", m, dc.calls, tt.docs)
			}
		})
	}
}

// --seed with --fixed-ids repeats a run's documents, numbers included;
// without --fixed-ids, a second run has numbers of its own.
func TestSendDocumentsSeeded(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := func(args ...string) *docCounter {
		dc, srv := newDocCounter(t)
		if code, stdout, stderr := clitest.Run(t, append([]string{"send", "--url", srv.URL, "--event", "CREATE_RECEIVABLE_DOC", "--count", "300", "--seed", "9"}, args...)...); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		return dc
	}
	a, b, c := run("--fixed-ids"), run("--fixed-ids"), run()
	for i := range a.bodies {
		if a.bodies[i] != b.bodies[i] {
			t.Fatalf("call %d differs between two --seed 9 --fixed-ids runs", i)
		}
	}
	for num := range c.docs["CREATE_RECEIVABLE_DOC"] {
		if a.docs["CREATE_RECEIVABLE_DOC"][num] > 0 {
			t.Errorf("a run without --fixed-ids repeats document %s", num)
		}
	}
}
