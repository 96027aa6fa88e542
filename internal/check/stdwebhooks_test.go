package check

import (
	"context"
	"crypto/hmac"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/whsim/whsim/internal/sign"
)

// sigRun runs the signature check against h and returns its results by
// case name.
func sigRun(t *testing.T, h http.Handler) (*Summary, map[string]Result) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Checks = []string{signature}
	cfg.Now = nil // the library checks the timestamp against its own clock
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Result{}
	for _, r := range results {
		byName[r.Case.Name] = r
	}
	return sum, byName
}

// A receiver built on the official Go library of Standard Webhooks passes
// every signature case, the new ones included: whsim and the library agree
// on what a signature is.
func TestOfficialLibraryPassesSignature(t *testing.T) {
	wh, err := standardwebhooks.NewWebhook(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	sum, results := sigRun(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		if err := wh.Verify(body, r.Header); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	for _, name := range []string{
		"correct", "missing-webhook-id", "missing-webhook-timestamp", "missing-webhook-signature",
		"timestamp-not-a-number", "unknown-version-beside-v1", "unknown-version-only", "retry-same-webhook-id",
	} {
		if _, ok := results[name]; !ok {
			t.Errorf("no case %s", name)
		}
	}
	if tl := sum.Checks[signature]; tl.Fail != 0 || tl.Warn != 0 || tl.Pass != len(results) {
		t.Errorf("signature %+v, want every case passed", *tl)
		for _, r := range results {
			if r.Verdict != Pass {
				t.Logf("  %s: %s", r.Case.Name, r.Reason)
			}
		}
	}
}

// lenient is a hand-written verifier with one shortcut each: it fails the
// case named for that shortcut, and only that one.
type lenient struct {
	noTimestamp  bool // never parses or checks webhook-timestamp
	noID         bool // does not require webhook-id
	anyVersion   bool // takes whatever comes before the comma
	firstSigOnly bool // looks at the first signature only
	dedupe       bool // refuses a webhook-id it has seen
	signer       *sign.Signer
	seen         map[string]bool
}

func (l *lenient) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id, ts, sigs := r.Header.Get("Webhook-Id"), r.Header.Get("Webhook-Timestamp"), r.Header.Get("Webhook-Signature")
	if (id == "" && !l.noID) || sigs == "" || (ts == "" && !l.noTimestamp) {
		http.Error(w, "missing headers", http.StatusBadRequest)
		return
	}
	if !l.noTimestamp {
		n, err := strconv.ParseInt(ts, 10, 64)
		if d := time.Now().Unix() - n; err != nil || d > 300 || d < -300 {
			http.Error(w, "bad timestamp", http.StatusBadRequest)
			return
		}
	}
	want := strings.TrimPrefix(l.signer.SignatureOf(id, ts, body), "v1,")
	list := strings.Fields(sigs)
	if l.firstSigOnly {
		list = list[:1]
	}
	ok := false
	for _, s := range list {
		version, sig, _ := strings.Cut(s, ",")
		if (version == "v1" || l.anyVersion) && hmac.Equal([]byte(sig), []byte(want)) {
			ok = true
		}
	}
	if !ok {
		http.Error(w, "No matching signature found", http.StatusUnauthorized)
		return
	}
	if l.dedupe {
		if l.seen[id] {
			http.Error(w, "duplicate webhook-id", http.StatusConflict)
			return
		}
		l.seen[id] = true
	}
	w.WriteHeader(http.StatusOK)
}

func TestLenientVerifiersFailTheirCase(t *testing.T) {
	signer, err := sign.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		l     lenient
		fails []string
	}{
		{"careful", lenient{}, nil},
		{"ignores the timestamp", lenient{noTimestamp: true},
			[]string{"missing-webhook-timestamp", "timestamp-6-minutes-old", "timestamp-6-minutes-ahead", "timestamp-not-a-number"}},
		{"does not require webhook-id", lenient{noID: true}, []string{"missing-webhook-id"}},
		{"takes any version", lenient{anyVersion: true}, []string{"unknown-version-only"}},
		{"reads the first signature only", lenient{firstSigOnly: true}, []string{"several-signatures", "unknown-version-beside-v1"}},
		{"refuses a retry as a replay", lenient{dedupe: true}, []string{"retry-same-webhook-id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.l
			l.signer, l.seen = signer, map[string]bool{}
			_, results := sigRun(t, &l)
			for name, r := range results {
				want := Pass
				for _, f := range tt.fails {
					if f == name {
						want = Fail
					}
				}
				if r.Verdict != want {
					t.Errorf("%s: %s (%s), want %s", name, r.Verdict, r.Reason, want)
				}
			}
		})
	}
}

// When correct fails with the status the other byte forms got, the
// raw-bytes hint goes on correct too.
func TestCorrectCarriesTheRawBytesHint(t *testing.T) {
	_, results := sigRun(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "No matching signature found", http.StatusUnauthorized)
	}))
	c := results["correct"]
	if c.Verdict != Fail || !strings.Contains(c.Reason, "raw bytes") {
		t.Errorf("correct: %s %q", c.Verdict, c.Reason)
	}
	if c.Answer == nil || !strings.Contains(string(c.Answer.Body), "No matching signature") {
		t.Errorf("correct's answer %+v", c.Answer)
	}
}
