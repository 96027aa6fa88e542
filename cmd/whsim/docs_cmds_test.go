package main

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// distinctDocs is a receiver's count of documents, made apart from whsim's
// own reading of bodies: the distinct document numbers (an invoice's
// invoiceCode, else its code, a receipt's 收款单编号) of one event's calls in a capture
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
				Code        string `json:"code"`
				InvoiceCode string `json:"invoiceCode"`
				CreateTime  int64  `json:"createTime"`
				Receipt     struct {
					Number string `json:"收款单编号"`
					Date   int64  `json:"业务日期"`
				} `json:"收款单"`
			} `json:"data"`
		}
		ts.Check(json.Unmarshal([]byte(rec.Body), &env))
		num := env.Data.InvoiceCode + env.Data.Receipt.Number
		if num == "" {
			num = env.Data.Code // a sample-shape invoice: its only number
		}
		nums[num] = true
		datedAsDocument(ts, env.Data.Code, env.Data.CreateTime)
		datedAsDocument(ts, env.Data.Receipt.Number, env.Data.Receipt.Date)
		calls++
	}
	ts.Check(sc.Err())
	if len(nums) != want {
		ts.Fatalf("%s: %d distinct documents in %d calls, want %d", args[1], len(nums), calls, want)
	}
}

// datedAsDocument fails the script when a document number numbered by day
// (PREFIX+yyyyMMdd+sequence: twelve digits or more after the prefix) has a
// date that is no date, or not the document's own (ms, its day in
// Asia/Shanghai; 0: a body without one, the sample shape).
func datedAsDocument(ts *testscript.TestScript, number string, ms int64) {
	digits := strings.TrimLeft(number, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	if len(digits) < 12 {
		return // a running number, or none
	}
	day, err := time.Parse("20060102", digits[:8])
	if err != nil {
		ts.Fatalf("document number %s: %s is no date", number, digits[:8])
	}
	if ms != 0 {
		if own := time.UnixMilli(ms).In(time.FixedZone("CST", 8*3600)).Format("20060102"); own != digits[:8] {
			ts.Fatalf("document number %s is dated %s, the document %s", number, day.Format(time.DateOnly), own)
		}
	}
}
