// Command checkprobe is a fast, careful webhook receiver with a debug
// endpoint implementing whsim check's probe (GET /debug/{kind}s/{code}),
// for bench/checkprobe.sh; -race makes it check, then insert, without a
// lock (the README's failing run). It prints its URL and serves until
// killed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

type row struct {
	state string
	lines int
}

func main() {
	race := flag.Bool("race", false, "check, then insert, without a lock")
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	val, err := validate.New(validate.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	rows := map[string][]*row{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/debug/") {
			key := strings.TrimPrefix(r.URL.Path, "/debug/")
			mu.Lock()
			rs := rows[key]
			var last row
			if len(rs) > 0 {
				last = *rs[len(rs)-1]
			}
			mu.Unlock()
			if len(rs) == 0 {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintf(w, `{"count":%d,"state":%q,"lines":%d}`, len(rs), last.state, last.lines)
			return
		}
		body, _ := io.ReadAll(r.Body)
		event := r.URL.Query().Get("businessType")
		e, ok := spec.Lookup(event)
		if !ok || val.Failed(val.Check(body, event)) {
			http.Error(w, "invalid", 400)
			return
		}
		var env struct {
			RequestID string         `json:"requestId"`
			Data      map[string]any `json:"data"`
		}
		_ = json.Unmarshal(body, &env) // the validator passed it
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
		mu.Lock()
		defer mu.Unlock()
		if *race && state == "created" {
			if len(rows[key]) > 0 {
				return
			}
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			rows[key] = append(rows[key], &row{state, len(lines)})
			return
		}
		if seen[env.RequestID] {
			return
		}
		seen[env.RequestID] = true
		switch rs := rows[key]; {
		case len(rs) == 0:
			rows[key] = []*row{{state, len(lines)}}
		case state == "created":
			rs[0].lines = len(lines)
		default:
			rs[0].state = state
		}
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("http://" + ln.Addr().String())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	_ = srv.Serve(ln)
}
