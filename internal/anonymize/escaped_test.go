package anonymize

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// A sender that writes every character beyond ASCII as a \u escape
// (Python's json.dumps, Jackson's ESCAPE_NON_ASCII) sends bodies of ASCII
// alone; a stand-in written there is escaped the same way (the hex in the
// original's case), so the fixture stays ASCII as the ERP sent it, and
// decoded it is what the unescaped body gives.
func TestStandInsInAnEscapedBodyAreEscaped(t *testing.T) {
	t.Parallel()
	plain := `{"businessType":4010,"data":{"staffName":"张伟","invoiceTitle":"上海鼎盛贸易有限公司","comments":"联系人李娜，谢谢","x":"张伟已确认"}}`
	var v any
	mustUnmarshal(t, []byte(plain), &v)
	for _, upper := range []bool{false, true} {
		var b strings.Builder
		for _, r := range plain {
			if r < utf8.RuneSelf {
				b.WriteRune(r)
				continue
			}
			h := strings.ToLower
			if upper {
				h = strings.ToUpper
			}
			b.WriteString(`\u` + h(hex4(r)))
		}
		escaped := b.String()
		out, _, err := newTestAnonymizer(t, testKey).Payload([]byte(escaped))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(out); i++ {
			if out[i] >= utf8.RuneSelf {
				t.Fatalf("upper %v: the output holds characters beyond ASCII: %s", upper, out)
			}
		}
		for _, e := range strings.Split(string(out), `\u`)[1:] {
			if h := e[:4]; upper && h != strings.ToUpper(h) || !upper && h != strings.ToLower(h) {
				t.Errorf("upper %v: an escape's hex %s is not in the original's case: %s", upper, h, out)
				break
			}
		}
		want, _, err := newTestAnonymizer(t, testKey).Payload([]byte(plain))
		if err != nil {
			t.Fatal(err)
		}
		var got, wantV any
		mustUnmarshal(t, out, &got)
		mustUnmarshal(t, want, &wantV)
		if !reflect.DeepEqual(got, wantV) {
			t.Errorf("upper %v: the escaped body gives %s, the plain one %s", upper, out, want)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatal(err)
		}
	}
}

func hex4(r rune) string {
	const x = "0123456789abcdef"
	return string([]byte{x[r>>12&15], x[r>>8&15], x[r>>4&15], x[r&15]})
}
