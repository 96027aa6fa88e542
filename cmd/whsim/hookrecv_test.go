package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/whsim/whsim/internal/validate"
)

// hookRecv is a receiver whose behaviour a script switches between runs,
// so that check --rerun can be shown a defect and then its fix:
//
//	exec hookrecv <modefile> <readyfile> &
//
// It writes its URL to readyfile. Every call is read against modefile's
// content at that moment: "broken" answers 200 to everything but a
// requestId it has seen before (409, a duplicate-key receiver); "fixed"
// answers 400 to a call without businessType or one whsim's validator finds
// invalid, and 200 to the rest, re-deliveries included. With HOOK_SECRET
// (whsec_...) it verifies Standard Webhooks signatures first, as the
// official libraries do (the three headers, a timestamp within five
// minutes, any v1 signature of id.timestamp.body), and answers 401 to the
// rest. SIGINT or SIGTERM stops it.
func hookRecv() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hookrecv <modefile> <readyfile>")
		return 2
	}
	modeFile, ready := os.Args[1], os.Args[2]
	var key []byte
	if s := os.Getenv("HOOK_SECRET"); s != "" {
		k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "hookrecv: HOOK_SECRET:", err)
			return 2
		}
		key = k
	}
	v, err := validate.New(validate.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookrecv:", err)
		return 1
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if key != nil && !verified(key, r.Header, body) {
			http.Error(w, "No matching signature found", http.StatusUnauthorized)
			return
		}
		mode, _ := os.ReadFile(modeFile)
		event := r.URL.Query().Get("businessType")
		if strings.TrimSpace(string(mode)) == "fixed" {
			if event == "" || v.Failed(v.Check(body, event)) {
				http.Error(w, "invalid call", http.StatusBadRequest)
				return
			}
			fmt.Fprintln(w, "ok")
			return
		}
		var doc struct{ RequestID string }
		_ = json.Unmarshal(body, &doc)
		mu.Lock()
		dup := doc.RequestID != "" && seen[doc.RequestID]
		seen[doc.RequestID] = true
		mu.Unlock()
		if dup {
			http.Error(w, "UNIQUE constraint failed: events.requestId", http.StatusConflict)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return serveUntilSignal("hookrecv", ready, "/hook", h, nil)
}

// verified checks a Standard Webhooks signature.
func verified(key []byte, h http.Header, body []byte) bool {
	id, ts, sigs := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp"), h.Get("Webhook-Signature")
	at, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil || sigs == "" {
		return false
	}
	if d := time.Since(time.Unix(at, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return false
	}
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s.%d.", id, at)
	m.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	for _, s := range strings.Fields(sigs) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

// reproduceCmd writes the reproduce command a check report gives a case to
// a shell script, so that a script runs it as a user would paste it:
// reproduce <report.json> <check> <case> <out.sh>
func reproduceCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: reproduce <report.json> <check> <case> <out.sh>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, line := range strings.Split(string(b), "\n") {
		var c struct{ Check, Case, Reproduce string }
		if json.Unmarshal([]byte(line), &c) != nil || c.Check != args[1] || c.Case != args[2] {
			continue
		}
		if c.Reproduce == "" {
			ts.Fatalf("%s %s has no reproduce command", args[1], args[2])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(c.Reproduce+"\n"), 0o644))
		return
	}
	ts.Fatalf("no case %s %s in %s", args[1], args[2], args[0])
}
