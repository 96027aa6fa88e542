package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
)

// docRecv is a receiver that stores documents and answers a probe about
// them, for listen --fault --probe scripts:
//
//	exec docrecv <mode> <readyfile> <logfile> &
//
// It writes its URL to readyfile and a line per call to logfile:
// "<requestId> <bytes> <status>". POST stores the body's document (an
// invoice's data.code, else its data.invoiceCode; a receipt's
// data.收款单.收款单编号)
// in the state its businessType implies; a body that is not JSON is
// answered 400. mode says how it meets a document it holds already:
//
//   - careful: one record per document, whatever the calls (the state
//     never goes back: a late create leaves an audit or a void);
//   - stores: every create adds a record (re-deliveries stored twice);
//   - reqid: a create with a requestId it has not seen adds a record, one
//     it has seen is answered 200 and dropped (de-duplicating on requestId);
//   - stores500: as stores, then answers 500 (stored, yet refused).
//
// Later events (audit, void) update the document's state in every mode.
//
// GET /probe?kind=&code=&inv= (or /probe/<kind>/<code>) answers
// {"count":n,"state":s}; a GET of any other path 404. SIGINT or
// SIGTERM stops it.
func docRecv() int {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: docrecv careful|stores|stores500|reqid <readyfile> <logfile>")
		return 2
	}
	mode, ready, logName := os.Args[1], os.Args[2], os.Args[3]
	logf, err := os.OpenFile(logName, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docrecv:", err)
		return 1
	}
	defer logf.Close()
	type doc struct {
		count int
		state string
	}
	var mu sync.Mutex
	docs := map[string]*doc{}
	ids := map[string]bool{}
	rank := map[string]int{"created": 1, "audited": 2, "voided": 2}
	states := map[string]string{
		"CREATE_PURCHASE_ORDER_INVOICE": "created", "AUDIT_PURCHASE_ORDER_INVOICE": "audited",
		"CREATE_RECEIVABLE_DOC": "created", "ABANDON_RECEIVABLE_DOC": "voided",
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (r.URL.Path == "/probe" || strings.HasPrefix(r.URL.Path, "/probe/")) {
			q := r.URL.Query()
			if kind, code, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/probe/"), "/"); ok && r.URL.Path != "/probe" {
				q.Set("kind", kind)
				q.Set("code", code)
			}
			key := q.Get("kind") + "/" + q.Get("code")
			if q.Get("code") == "" {
				key = q.Get("kind") + "/inv:" + q.Get("inv")
			}
			mu.Lock()
			d := docs[key]
			mu.Unlock()
			if d == nil {
				fmt.Fprintln(w, `{"count":0}`)
				return
			}
			fmt.Fprintf(w, `{"count":%d,"state":%q}`+"\n", d.count, d.state)
			return
		}
		if r.Method == http.MethodGet {
			// No route of its: 404, as a web framework answers (a probe
			// URL that matches no route gets it).
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var env struct {
			RequestID string         `json:"requestId"`
			Data      map[string]any `json:"data"`
		}
		status := http.StatusOK
		var key string
		event := r.URL.Query().Get("businessType")
		if err := json.Unmarshal(body, &env); err != nil || env.Data == nil || states[event] == "" {
			status = http.StatusBadRequest
		} else if code := receiptNumber(env.Data); code != "" {
			key = "receipt/" + code
		} else if code, _ := env.Data["code"].(string); code != "" {
			key = "invoice/" + code
		} else {
			inv, _ := env.Data["invoiceCode"].(string)
			key = "invoice/inv:" + inv
		}
		mu.Lock()
		if key != "" {
			d := docs[key]
			if d == nil {
				d = &doc{}
				docs[key] = d
			}
			add := d.count == 0
			creates := strings.HasPrefix(event, "CREATE_")
			switch mode {
			case "stores", "stores500":
				add = add || creates
			case "reqid":
				add = add || creates && !ids[env.RequestID]
				ids[env.RequestID] = true
			}
			if add {
				d.count++
			}
			if st := states[event]; rank[st] > rank[d.state] {
				d.state = st
			}
		}
		if mode == "stores500" && key != "" {
			status = http.StatusInternalServerError
		}
		fmt.Fprintf(logf, "%s %d %d\n", env.RequestID, len(body), status)
		mu.Unlock()
		w.WriteHeader(status)
		fmt.Fprintln(w, strings.ToLower(http.StatusText(status)))
	})
	return serveUntilSignal("docrecv", ready, "/", h, nil)
}

// receiptNumber is a receipt's 收款单编号, under data.收款单 or data.
func receiptNumber(data map[string]any) string {
	if head, ok := data["收款单"].(map[string]any); ok {
		data = head
	}
	s, _ := data["收款单编号"].(string)
	return s
}
