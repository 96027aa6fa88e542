package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/whsim/whsim/internal/spec"
)

// storeRecv is a receiver that keeps documents, with a debug endpoint that
// answers check's probe (GET /debug/{kind}s/{code}), whose behaviour a
// script switches between runs, so that check --rerun can be shown an
// effects defect and then its fix:
//
//	exec storerecv <modefile> <readyfile> &
//
// It writes its URL to readyfile. Every call is read against modefile's
// content at that moment: "doubles" stores every create it is sent, a
// re-delivery too (one record per call); "fixed" keys on the document:
// a create of a document it holds only updates it; "novoid" does so too
// but drops a void of a document it holds. Audits and voids set the
// state. It answers 200 to every POST. SIGINT or SIGTERM stops it.
func storeRecv() int {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: storerecv <modefile> <readyfile>")
		return 2
	}
	modeFile, ready := os.Args[1], os.Args[2]
	type row struct {
		state string
		lines int
	}
	var mu sync.Mutex
	rows := map[string][]*row{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			key, ok := strings.CutPrefix(r.URL.Path, "/debug/")
			mu.Lock()
			rs := rows[key]
			var last row
			if len(rs) > 0 {
				last = *rs[len(rs)-1]
			}
			mu.Unlock()
			if !ok || len(rs) == 0 {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintf(w, `{"count":%d,"state":%q,"lines":%d}`, len(rs), last.state, last.lines)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		event := r.URL.Query().Get("businessType")
		e, ok := spec.Lookup(event)
		if !ok {
			fmt.Fprintln(w, "ok")
			return
		}
		var env struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &env)
		kind, code := "invoices", ""
		var lines []any
		if e.Kind == spec.Receipt {
			kind = "receipts"
			hdr, _ := env.Data["收款单"].(map[string]any)
			code, _ = hdr["收款单编号"].(string)
			lines, _ = env.Data["收款明细"].([]any)
		} else {
			code, _ = env.Data["code"].(string)
			lines, _ = env.Data["items"].([]any)
			if rec, ok := env.Data["records"].([]any); ok {
				lines = rec
			}
		}
		key := kind + "/" + code
		state := "created"
		switch event {
		case "AUDIT_PURCHASE_ORDER_INVOICE":
			state = "audited"
		case "ABANDON_RECEIVABLE_DOC":
			state = "voided"
		}
		mode, _ := os.ReadFile(modeFile)
		mu.Lock()
		switch rs := rows[key]; {
		case len(rs) == 0:
			rows[key] = []*row{{state, len(lines)}}
		case state == "created" && strings.TrimSpace(string(mode)) == "doubles":
			rows[key] = append(rs, &row{rs[len(rs)-1].state, len(lines)})
		case state == "created":
			rs[0].lines = len(lines)
		case state == "voided" && strings.TrimSpace(string(mode)) == "novoid":
		default:
			for _, r := range rs {
				r.state = state
			}
		}
		mu.Unlock()
		fmt.Fprintln(w, "ok")
	})
	return serveUntilSignal("storerecv", ready, "", h, nil)
}

// reportCommand writes the command an HTML report's header prints to a
// shell script, so that a script runs it as a user would paste it:
// reportcmd <report.html> <out.sh>
func reportCommand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: reportcmd <report.html> <out.sh>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		ts.Fatalf("%s holds no report data", args[0])
	}
	var d struct{ Meta struct{ Command string } }
	ts.Check(json.Unmarshal(m[1], &d))
	if d.Meta.Command == "" {
		ts.Fatalf("%s prints no command", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(d.Meta.Command+"\n"), 0o644))
}

// rerunReason writes the reason --rerun --output json gave a case (a hint
// holding a command) after its last ": run " to a shell script:
// rerunhint <rerun.json> <check> <out.sh>
func rerunHint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: rerunhint <rerun.json> <check> <out.sh>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, line := range strings.Split(string(b), "\n") {
		var c struct{ Check, Reason string }
		if json.Unmarshal([]byte(line), &c) != nil || c.Check != args[1] {
			continue
		}
		i := strings.LastIndex(c.Reason, ": run ")
		if i < 0 {
			ts.Fatalf("%s: the reason %q names no command", args[1], c.Reason)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(c.Reason[i+len(": run "):]+"\n"), 0o644))
		return
	}
	ts.Fatalf("no %s case in %s", args[1], args[0])
}
