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
//
// A body is a base with one span replaced (splice): the base one of the
// fixtures, or none, where the insert is the whole body. Fixtures given as
// whole bodies made every input the fuzzer found interesting a body of
// kilobytes, which its minimizer retries without a byte, then without each
// run of bytes, up to a minute an input (-fuzzminimizetime): fuzzing stood
// at a few runs in a quarter of a minute. The edit keeps what the fuzzer
// varies, and minimizes, small (maxInsert), while a run still checks a
// whole document.
func FuzzCheckUTF8(f *testing.F) {
	bases := []string{""}
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		bases = append(bases, load(f, name))
	}
	for i := range bases[1:] {
		f.Add(uint8(i+1), uint16(0), uint16(0), []byte(nil), "")
	}
	f.Add(uint8(0), uint16(0), uint16(0), []byte(`{"requestId":"\u00e9","businessType":5007,"data":{"收款单":{"备注":"a\tb"}}}`), "CREATE_RECEIVABLE_DOC")
	f.Add(uint8(0), uint16(0), uint16(0), []byte("{\"data\":{\"收款明细\":[{\"备注\":\"\x01\"}]}}"), "NOPE")
	// A fixture's document number made to hold a control character, an
	// escape and a character outside the BMP.
	f.Add(uint8(1), uint16(strings.Index(bases[1], `"SKD`)+1), uint16(3), []byte("\x01\\u00e9\U0001F600"), "")
	v := mustNew(f, Options{Strict: true})
	f.Fuzz(func(t *testing.T, base uint8, at, cut uint16, insert []byte, event string) {
		if len(insert) > maxInsert || len(event) > maxEvent {
			return // what the minimizer would take minutes over
		}
		body := splice(bases[int(base)%len(bases)], int(at), int(cut), insert)
		if !utf8.Valid(body) {
			return
		}
		want := v.Check(body, event)
		if got, _ := v.checkBody(body, event, true); !reflect.DeepEqual(got, want) {
			t.Fatalf("known UTF-8: %+v\nCheck: %+v\nfor %q", got, want, body)
		}
	})
}

// maxInsert and maxEvent bound FuzzCheckUTF8's values that the fuzzer
// grows: an input it finds interesting is minimized by trying it without
// each run of bytes of each value, the square of a value's length in
// runs of Check (a 2 KiB event of random bytes took it past 20 s). An
// event is a name, and a whole fixture's strings around an insert of 256
// bytes are a long enough body to lex.
const maxInsert, maxEvent = 256, 64

// splice is base with cut bytes from at replaced by insert, at and cut held
// within base.
func splice(base string, at, cut int, insert []byte) []byte {
	at = min(at, len(base))
	cut = min(cut, len(base)-at)
	return append(append([]byte(base[:at]), insert...), base[at+cut:]...)
}

// FuzzKeysInPlace: the scan that compares the expected member's name with
// the key in place (jsonlex's KeyIs) finds, on every body, exactly what the
// scan that reads and looks up every key finds. Run it with
// -fuzzminimizetime=50x: minimizing each new input grown from its 2.7 KB
// seeds (two checks an exec) otherwise takes most of a minute's run, which
// then shows a few dozen execs.
func FuzzKeysInPlace(f *testing.F) {
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		body := load(f, name)
		f.Add([]byte(body))
		// Escaped keys, keys out of order, a repeated key, a key cut short.
		f.Add([]byte(strings.Replace(body, `"收款单"`, `"\u6536款单"`, 1)))
		f.Add([]byte(strings.Replace(body, `"requestId"`, `"data2"`, 1)))
		f.Add([]byte(strings.Replace(body, `"code": "CNY",`, `"code": "CNY", "code": "CNY",`, 1)))
		f.Add([]byte(body[:len(body)/2]))
	}
	f.Add([]byte(`{"data":{"收款单":{"收款单编号"`))
	f.Add([]byte(`{"data":{"收款单":{"收款单编号" x`))
	fast, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	slow, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	slow.keysByRead = true
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want := fast.Check(body, ""), slow.Check(body, "")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("keys in place:\n%+v\nkeys read:\n%+v", got, want)
		}
	})
}
