package load

import (
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// The document numbers a delivery makes its own: at the spec's paths, only
// where there are DocDigits digits to replace, never under a --set path.
func TestDocOffsets(t *testing.T) {
	t.Parallel()
	const inv, rec = "CREATE_PURCHASE_ORDER_INVOICE", "CREATE_RECEIVABLE_DOC"
	tests := []struct {
		name, event, body string
		kept              [][]string
		want              []string // the digits replaced, in order
	}{
		{"invoice", inv, `{"data":{"code":"CGFP202610250183","invoiceCode":"26352000000125002475","items":[{"relatedOrderCode":"CGDD202610110003"}]}}`, nil,
			[]string{"10250183", "25002475"}},
		{"empty code", inv, `{"data":{"code":"","invoiceCode":"26352000000125002475"}}`, nil, []string{"25002475"}},
		{"short number", inv, `{"data":{"code":"X1234567"}}`, nil, nil},
		{"escaped", inv, `{"data":{"code":"\u004112345678"}}`, nil, nil},
		{"receipt", rec, `{"requestId":"x","data":{"收款单":{"收款单编号":"SKD00000633"},"收款来源明细":[{"源单编号":"AR202611010001"}]}}`, nil, []string{"00000633"}},
		{"set by the user", inv, `{"data":{"code":"CGFP202610250183","invoiceCode":"26352000000125002475"}}`, [][]string{{"data", "code"}}, []string{"25002475"}},
		{"data set by the user", rec, `{"data":{"收款单":{"收款单编号":"SKD00000633"}}}`, [][]string{{"data"}}, nil},
		{"unknown event", "NOPE", `{"data":{"code":"CGFP202610250183"}}`, nil, nil},
	}
	for _, tt := range tests {
		offs := NewDocPaths(tt.kept).offsets(tt.event, []byte(tt.body))
		var got []string
		for _, o := range offs {
			got = append(got, tt.body[o:o+attempt.DocDigits])
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
