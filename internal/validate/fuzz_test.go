package validate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/termsafe"
)

// FuzzCheck feeds arbitrary bodies to the validator: it must not panic or
// hang, its syntax verdict must agree with encoding/json on valid UTF-8
// input, and every finding must be well formed.
func FuzzCheck(f *testing.F) {
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		f.Add([]byte(load(f, name)), "")
	}
	f.Add([]byte(`{"requestId":"x","businessType":4000,"data":{"items":[{"tax":1}],"records":[]}}`), "CREATE_PURCHASE_ORDER_INVOICE")
	f.Add([]byte(`{"a":[1,2,],"b":NaN}`), "")
	f.Add([]byte("\ufeff{}"), "NOPE")
	f.Add([]byte(`{"data":{"收款单":null,"收款明细":[{"应收金额":1e400}],"源单明细":{}}}`), "CREATE_RECEIVABLE_DOC")
	// Hostile bytes where messages quote the input: an escape, a tax id's
	// check characters, an enumeration, the query's event.
	f.Add([]byte("{\"a\":\"\\\x1b\"}"), "")
	v, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, event string) {
		fs := v.Check(body, event)
		syntax := false
		for _, x := range fs {
			if x.Rule == "" || (x.Severity != Error && x.Severity != Warning) || x.Message == "" {
				t.Fatalf("malformed finding %+v", x)
			}
			if x.Rule == ruleSyntax {
				syntax = true
				if len(fs) != 1 || x.Line < 1 || x.Column < 1 {
					t.Fatalf("syntax finding %+v among %d", x, len(fs))
				}
			}
			if !termsafe.Safe(x.Path) {
				t.Fatalf("unsafe path %q", x.Path)
			}
			if !termsafe.Safe(x.Message) {
				t.Fatalf("unsafe message %q", x.Message)
			}
		}
		if utf8.Valid(body) && !strings.HasPrefix(string(body), "\ufeff") && deep(body) < jsonlex.MaxDepth {
			if want := json.Valid(body); want == syntax {
				t.Fatalf("syntax error %v, but json.Valid says %v; findings %+v", syntax, want, fs)
			}
		}
	})
}

// deep is an upper bound of the nesting depth of body.
func deep(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '[' || c == '{' {
			n++
		}
	}
	return n
}

// FuzzCheckUTF8 holds the check of a body known to be valid UTF-8 (a
// capture record's body, which the lexer then does not check for UTF-8
// again) to Check: the same findings for every valid UTF-8 body.
func FuzzCheckUTF8(f *testing.F) {
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		f.Add([]byte(load(f, name)), "")
	}
	f.Add([]byte(`{"requestId":"\u00e9","businessType":5007,"data":{"收款单":{"备注":"a\tb"}}}`), "CREATE_RECEIVABLE_DOC")
	f.Add([]byte("{\"data\":{\"收款明细\":[{\"备注\":\"\x01\"}]}}"), "NOPE")
	v := mustNew(f, Options{Strict: true})
	f.Fuzz(func(t *testing.T, body []byte, event string) {
		if !utf8.Valid(body) {
			return
		}
		want := v.Check(body, event)
		if got, _ := v.checkBody(body, event, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("known UTF-8: %+v\nCheck: %+v\nfor %q", got, want, body)
		}
	})
}
