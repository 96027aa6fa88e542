package main

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// distinctDocs is a receiver's count of documents, made apart from whsim's
// own reading of bodies: the distinct document numbers (an invoice's
// invoiceCode, a receipt's 收款单编号) of one event's calls in a capture
// must be n: distinctdocs CAPTURE EVENT N
func distinctDocs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: distinctdocs <capture> <event> <n>")
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	nums := map[string]bool{}
	calls := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Query string `json:"query"`
			Body  string `json:"body"`
		}
		ts.Check(json.Unmarshal(sc.Bytes(), &rec))
		q, err := url.ParseQuery(rec.Query)
		ts.Check(err)
		if q.Get("businessType") != args[1] {
			continue
		}
		var env struct {
			Data struct {
				InvoiceCode string `json:"invoiceCode"`
				Receipt     struct {
					Number string `json:"收款单编号"`
				} `json:"收款单"`
			} `json:"data"`
		}
		ts.Check(json.Unmarshal([]byte(rec.Body), &env))
		nums[env.Data.InvoiceCode+env.Data.Receipt.Number] = true
		calls++
	}
	ts.Check(sc.Err())
	if len(nums) != want {
		ts.Fatalf("%s: %d distinct documents in %d calls, want %d", args[1], len(nums), calls, want)
	}
}
