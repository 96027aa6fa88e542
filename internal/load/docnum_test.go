package load

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// The document numbers a delivery makes its own: at the spec's paths, only
// where there are DocDigits digits to replace, never under a --set path;
// after the date of a number that carries one.
func TestDocOffsets(t *testing.T) {
	t.Parallel()
	const inv, rec = "CREATE_PURCHASE_ORDER_INVOICE", "CREATE_RECEIVABLE_DOC"
	tests := []struct {
		name, event, body string
		kept              [][]string
		want              []string // the digits replaced, in order
	}{
		{"invoice", inv, `{"data":{"code":"CGFP202610250183","invoiceCode":"26352000000125002475","items":[{"relatedOrderCode":"CGDD202610110003"}]}}`, nil,
			[]string{"00000183", "25002475"}}, // the code's date kept, its sequence widened
		{"no date", inv, `{"data":{"code":"CGFP202613450183"}}`, nil, []string{"13450183"}},
		{"running number", inv, `{"data":{"code":"CGFP00450183"}}`, nil, []string{"00450183"}},
		{"receipt by day", rec, `{"data":{"收款单":{"收款单编号":"SKD202802290001"}}}`, nil, []string{"00000001"}},
		{"not a leap year", rec, `{"data":{"收款单":{"收款单编号":"SKD202502290001"}}}`, nil, []string{"02290001"}},
		{"empty code", inv, `{"data":{"code":"","invoiceCode":"26352000000125002475"}}`, nil, []string{"25002475"}},
		{"short number", inv, `{"data":{"code":"X1234567"}}`, nil, nil},
		{"escaped", inv, `{"data":{"code":"\u004112345678"}}`, nil, nil},
		{"receipt", rec, `{"requestId":"x","data":{"收款单":{"收款单编号":"SKD00000633"},"收款来源明细":[{"源单编号":"AR202611010001"}]}}`, nil, []string{"00000633"}},
		{"set by the user", inv, `{"data":{"code":"CGFP202610250183","invoiceCode":"26352000000125002475"}}`, [][]string{{"data", "code"}}, []string{"25002475"}},
		{"data set by the user", rec, `{"data":{"收款单":{"收款单编号":"SKD00000633"}}}`, [][]string{{"data"}}, nil},
		{"unknown event", "NOPE", `{"data":{"code":"CGFP202610250183"}}`, nil, nil},
	}
	for _, tt := range tests {
		dp := NewDocPaths(tt.kept)
		body := dp.byDay(tt.event, []byte(tt.body))
		var got []string
		for _, o := range dp.offsets(tt.event, body) {
			got = append(got, string(body[o:o+attempt.DocDigits]))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: replaced %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A feed gives every document of a run its own serial, the same to all the
// events of one document's life, past the pool's size.
func TestFeedDocumentSerials(t *testing.T) {
	t.Parallel()
	lanes := [][][]attempt.Template{templates("A", 3), templates("B", 2)}
	f := NewFeed(lanes, 1000, 0.1, false, 4)
	seen := map[string]bool{}
	docs, dups := 0, 0
	for job := f.Next(); job != nil; job = f.Next() {
		for _, r := range job {
			body := string(r.Payload())
			no := body[strings.LastIndex(body, `"no":"`):]
			switch {
			case r.Duplicate:
				dups++
				if !seen[no] {
					t.Fatalf("a duplicate of a document not sent: %s", no)
				}
			case r.Document:
				docs++
				if seen[no] {
					t.Fatalf("document number %s twice", no)
				}
				seen[no] = true
			default:
				t.Fatalf("a call neither a document nor a duplicate")
			}
		}
	}
	if docs != 2000 || dups == 0 {
		t.Errorf("%d documents, %d duplicates; want 2000 and some", docs, dups)
	}
}

// A document number that carries its date (PREFIX+yyyyMMdd+NNNN, as ERPs
// number by day) keeps that date in every delivery, the date the document
// itself says: the serial goes after it, never into its month and day. A
// run of 100,000 documents still gives each a number of its own, and the
// same seed the same numbers.
func TestDatedDocNumbersKeepTheirDate(t *testing.T) {
	t.Parallel()
	const id = "00000000-0000-4000-8000-000000000000"
	inv := `{"requestId":"` + id + `","businessType":4010,"data":{"code":"CGFP202610250183","invoiceCode":"26352000000125002475","createTime":1792922400000}}`
	rec := `{"requestId":"` + id + `","businessType":5007,"data":{"收款单":{"收款单编号":"SKD202603180007","业务日期":1773763200000}}}`
	run := NewDocPaths(nil)
	lanes := [][][]attempt.Template{
		{{newTemplate("CREATE_PURCHASE_ORDER_INVOICE", nil, []byte(inv), true, run)}},
		{{newTemplate("CREATE_RECEIVABLE_DOC", nil, []byte(rec), true, run)}},
	}
	numbers := func(seed uint64) []string {
		var out []string
		f := NewFeed(lanes, 50_000, 0, false, seed)
		for job := f.Next(); job != nil; job = f.Next() {
			var env struct {
				Data struct {
					Code, InvoiceCode string
					Receipt           struct {
						Number string `json:"收款单编号"`
					} `json:"收款单"`
				}
			}
			body := job[0].Payload()
			if err := json.Unmarshal(body, &env); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			out = append(out, env.Data.Code+env.Data.Receipt.Number, env.Data.InvoiceCode)
		}
		return out
	}
	got := numbers(9)
	seen := map[string]bool{}
	for _, n := range got {
		if n == "" {
			continue
		}
		if seen[n] {
			t.Fatalf("document number %s twice in a run", n)
		}
		seen[n] = true
		switch {
		case strings.HasPrefix(n, "CGFP"):
			if !strings.HasPrefix(n, "CGFP20261025") {
				t.Fatalf("invoice code %s: not dated 2026-10-25, the invoice's date", n)
			}
		case strings.HasPrefix(n, "SKD"):
			if !strings.HasPrefix(n, "SKD20260318") {
				t.Fatalf("receipt number %s: not dated 2026-03-18, the receipt's date", n)
			}
		case !strings.HasPrefix(n, "26352"):
			t.Fatalf("invoice number %s: its year, province and channel changed", n)
		}
	}
	if len(seen) != 150_000 {
		t.Errorf("%d distinct numbers in 100,000 documents, want 150,000", len(seen))
	}
	if again := numbers(9); !slices.Equal(got, again) {
		t.Errorf("the same seed gave other numbers")
	}
}

// A run whose document numbers are the user's (--set on every number) sends
// one document however many calls carry it: documents counts it once, and
// no call is a duplicate unless it is an earlier one's bytes again (the
// user's requestId too). The counts do not depend on how many bodies the
// pool holds (10 calls said "documents 10", 300 "documents 256 duplicates
// 44").
func TestUserNumbersAreOneDocument(t *testing.T) {
	t.Parallel()
	const id = "00000000-0000-4000-8000-000000000000"
	set := [][]string{{"data", "收款单", "收款单编号"}}
	body := func(i int, no string) []byte {
		return []byte(`{"requestId":"` + id + `","businessType":5007,"data":{"收款单":{"收款单编号":"` + no + `","n":` + strconv.Itoa(i) + `}}}`)
	}
	for _, tt := range []struct {
		name          string
		fresh         bool // fresh requestIds, not the user's
		pool, rounds  int
		numbers       func(i int) string
		docs, repeats int
	}{
		{"one number, fresh ids, a pool of 10", true, 10, 10, func(int) string { return "SKD1" }, 1, 0},
		{"one number, fresh ids, past the pool", true, 4, 10, func(int) string { return "SKD1" }, 1, 0},
		{"one number and the user's id, past the pool", false, 4, 10, func(int) string { return "SKD1" }, 1, 6},
		{"two numbers in turn", true, 4, 10, func(i int) string { return "SKD" + strconv.Itoa(i%2) }, 2, 0},
	} {
		var lane [][]attempt.Template
		for i := range tt.pool {
			lane = append(lane, []attempt.Template{newTemplate("CREATE_RECEIVABLE_DOC", nil, body(i, tt.numbers(i)), tt.fresh, NewDocPaths(set))})
		}
		f := NewFeed([][][]attempt.Template{lane}, tt.rounds, 0, false, 1)
		docs, repeats := 0, 0
		for job := f.Next(); job != nil; job = f.Next() {
			if job[0].Document {
				docs++
			}
			if job[0].Duplicate {
				repeats++
			}
		}
		if docs != tt.docs || repeats != tt.repeats {
			t.Errorf("%s: %d documents, %d duplicates; want %d and %d", tt.name, docs, repeats, tt.docs, tt.repeats)
		}
	}
}

func TestIsDate(t *testing.T) {
	t.Parallel()
	for d, want := range map[string]bool{
		"20261204": true, "20240229": true, "19000101": true, "20261231": true,
		"20261301": false, "20261200": false, "20260230": false, "20230229": false, "18991231": false, "20261645": false,
	} {
		if got := isDate([]byte(d)); got != want {
			t.Errorf("isDate(%s) = %v, want %v", d, got, want)
		}
	}
}
