package export

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/payload"
)

func TestGenerated(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://127.0.0.1:9/hook?tenant=7")
	header := http.Header{"Content-Type": {"application/json"}, "X-Tenant": {"7"}}
	tests := []struct {
		name     string
		req      payload.Request
		count    int
		wantN    int
		sameIDs  bool // an override owns the requestId
		wantPath bool // an override does not fit: a *payload.PathError
	}{
		{name: "count of each event", req: payload.Request{Events: []string{"all"}, Shape: "described", Seed: 3}, count: 2, wantN: 8},
		{name: "an override owns the requestId", req: payload.Request{Events: []string{"CREATE_RECEIVABLE_DOC"}, Shape: "sample", Seed: 3,
			Sets: []string{"requestId=fixed"}}, count: 3, wantN: 3, sameIDs: true},
		{name: "an override that does not fit", req: payload.Request{Events: []string{"CREATE_RECEIVABLE_DOC"}, Shape: "described", Seed: 3,
			Unsets: []string{"data.nope"}}, count: 1, wantPath: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pl, err := tt.req.Plan(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			calls, err := Generated(target, header, pl, tt.count, tt.req.Seed, 0)
			if tt.wantPath {
				if !errors.As(err, new(*payload.PathError)) {
					t.Fatalf("err = %v, want a *payload.PathError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != tt.wantN {
				t.Fatalf("%d calls, want %d", len(calls), tt.wantN)
			}
			ids := map[string]bool{}
			for _, c := range calls {
				ids[c.RequestID] = true
				if !strings.HasPrefix(c.URL, "http://127.0.0.1:9/hook?") || !strings.Contains(c.URL, "businessType="+c.Event) || !strings.Contains(c.URL, "tenant=7") {
					t.Errorf("URL %s: want the target with businessType=%s", c.URL, c.Event)
				}
				if c.Header.Get("X-Tenant") != "7" {
					t.Errorf("header %v: want the given header", c.Header)
				}
				if !strings.Contains(string(c.Body), `"requestId":"`+c.RequestID+`"`) {
					t.Errorf("body does not carry requestId %s", c.RequestID)
				}
			}
			if want := map[bool]int{false: tt.wantN, true: 1}[tt.sameIDs]; len(ids) != want {
				t.Errorf("%d distinct requestIds, want %d", len(ids), want)
			}
		})
	}
}

// The same seed: the same bodies; the ids and the document numbers are the
// seed's with nonce 0 (--fixed-ids) and the run's own with any other.
func TestGeneratedNonce(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	calls := func(nonce uint64) []Call {
		pl, err := payload.Request{Events: []string{"all"}, Shape: "described", Seed: 5, Nonce: nonce}.Plan(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		c, err := Generated(target, nil, pl, 3, 5, nonce)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	fixed, again, own := calls(0), calls(0), calls(99)
	for i := range fixed {
		if fixed[i].RequestID != again[i].RequestID || string(fixed[i].Body) != string(again[i].Body) {
			t.Errorf("call %d: two fixed-id exports differ", i)
		}
		if own[i].RequestID == fixed[i].RequestID {
			t.Errorf("call %d: a nonce kept the seed's id %s", i, own[i].RequestID)
		}
		a, b := strings.Replace(string(own[i].Body), own[i].RequestID, fixed[i].RequestID, 1), string(fixed[i].Body)
		if len(a) != len(b) || a == b {
			t.Fatalf("call %d: a nonce changed the length, or kept the document numbers", i)
		}
		for j := range a {
			if a[j] != b[j] && !(isDigit(a[j]) && isDigit(b[j])) {
				t.Errorf("call %d: a nonce changed more than the requestId and the numbers' digits: %q", i, a[max(j-20, 0):j+1])
				break
			}
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// An export's calls are documents of their own, as send's are: --count 300
// of each event is 300 distinct document numbers per event, past the 256
// bodies built per event.
func TestGeneratedDistinctDocuments(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://127.0.0.1:9/hook")
	pl, err := payload.Request{Events: []string{"all"}, Shape: "described", Seed: 8}.Plan(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	calls, err := Generated(target, nil, pl, 300, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]map[string]bool{}
	for _, c := range calls {
		var env struct {
			Data struct {
				InvoiceCode string `json:"invoiceCode"`
				Receipt     struct {
					Number string `json:"收款单编号"`
				} `json:"收款单"`
			} `json:"data"`
		}
		if err := json.Unmarshal(c.Body, &env); err != nil {
			t.Fatal(err)
		}
		if docs[c.Event] == nil {
			docs[c.Event] = map[string]bool{}
		}
		docs[c.Event][env.Data.InvoiceCode+env.Data.Receipt.Number] = true
	}
	for ev, nums := range docs {
		if len(nums) != 300 {
			t.Errorf("%s: %d distinct documents in 300 calls", ev, len(nums))
		}
	}
	if len(docs) != 4 {
		t.Errorf("%d events", len(docs))
	}
}
