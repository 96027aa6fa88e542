package anonymize

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// toFullWidth writes the ASCII letters and digits of s full-width, as a
// Chinese input method types them.
func toFullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(fullWidth(r))
	}
	return b.String()
}

// Identifiers as a person would recognise them: full-width, grouped with
// spaces or hyphens, or both. Each is replaced in the form it was written
// in, the text around it kept, and --check finds each in the original.
func TestVariantsOfIdentifiersAreReplaced(t *testing.T) {
	t.Parallel()
	const tax, doc = "91310115MA1FL3XK9D", "SKD20240917001"
	tests := []struct {
		name, text string
		gone       []string // what must not survive
		kept       string   // what stays around it
		fw         bool     // the stand-in is written full-width
	}{
		{"full-width tax id", "税号：" + toFullWidth(tax) + "。", []string{toFullWidth(tax), toFullWidth(tax[:8])}, "税号：", true},
		{"full-width lower-case tax id", "税号" + strings.ToLower(toFullWidth(tax)), []string{strings.ToLower(toFullWidth(tax))}, "税号", true},
		{"full-width unknown tax id", "税号 " + toFullWidth("91330203MA2H3C4K5X"), []string{toFullWidth("91330203MA2H3C4K5X")}, "税号 ", true},
		{"full-width mobile", "手机" + toFullWidth("13812345678"), []string{toFullWidth("13812345678"), toFullWidth("1234")}, "手机", true},
		{"full-width identity card", "身份证" + toFullWidth("11010519491231002X"), []string{toFullWidth("11010519491231002")}, "身份证", true},
		{"full-width document code", "单号" + toFullWidth(doc) + "已付", []string{toFullWidth(doc)}, "单号", true},
		{"tax id in groups of four", "tax 9131 0115 MA1F L3XK 9D ok", []string{"9131 0115 MA1F L3XK 9D"}, "tax ", false},
		{"tax id with a hyphen", "tax 913101-15MA1FL3XK9D", []string{"913101-15MA1FL3XK9D", "15MA1FL3XK9D"}, "tax ", false},
		{"unknown tax id in groups", "税号 9133 0203 MA2H 3C4K 5X", []string{"9133 0203 MA2H 3C4K 5X"}, "税号 ", false},
		{"mobile in other groups", "tel 1381-234-5678", []string{"1381-234-5678"}, "tel ", false},
		{"full-width mobile in groups", "电话 " + toFullWidth("138") + "\u3000" + toFullWidth("1234") + "－" + toFullWidth("5678"), []string{toFullWidth("1234") + "－" + toFullWidth("5678")}, "电话 ", true},
		{"identity card in groups", "id 110105 19491231 002X", []string{"110105 19491231 002X"}, "id ", false},
		{"document code with spaces", "单号 SKD 2024 0917 001", []string{"SKD 2024 0917 001"}, "单号 ", false},
		// What names nobody stays as it was.
		{"amounts in groups", "qty 12 34 56 price 1 200", nil, "qty 12 34 56 price 1 200", false},
		{"a date and a time", "2024-09-17 10:30, lot 2024-1234-5678", nil, "2024-09-17 10:30, lot 2024-1234-5678", false},
		{"full-width words", "ＯＫ，收到 ＡＢＣ", nil, "ＯＫ，收到 ＡＢＣ", false},
		{"inside a word", "uuid-1381-234-5678x", nil, "uuid-1381-234-5678x", false},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		a.r.Replace(code, doc) // the run replaced the document code elsewhere
		x, _ := json.Marshal(tt.text)
		body := []byte(`{"businessType":4010,"data":{"customerName":"上海鼎盛贸易有限公司","taxCode":"` + tax + `","x":` + string(x) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]any }
		mustUnmarshal(t, out, &got)
		s, _ := got.Data["x"].(string)
		for _, g := range tt.gone {
			if strings.Contains(s, g) {
				t.Errorf("%s: %q became %q, still holding %q", tt.name, tt.text, s, g)
			}
		}
		if !strings.Contains(s, tt.kept) || tt.gone == nil && s != tt.text {
			t.Errorf("%s: %q became %q", tt.name, tt.text, s)
		}
		if tt.fw && s == tt.text || tt.fw && !strings.ContainsAny(s, "０１２３４５６７８９") {
			t.Errorf("%s: %q became %q, want a full-width stand-in", tt.name, tt.text, s)
		}
		// The output is clean for --check, and the original planted back
		// into it is a leak.
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in the output %s", tt.name, leaks, out)
		}
		if tt.gone == nil {
			continue
		}
		planted := []byte(`{"businessType":4010,"data":{"customerName":` + string(mustJSON(t, got.Data["customerName"])) + `,"taxCode":` + string(mustJSON(t, got.Data["taxCode"])) + `,"x":` + string(x) + `}}`)
		if leaks := a.check(context.Background(), planted, 1); len(leaks) == 0 {
			t.Errorf("%s: --check finds no leak in %s", tt.name, planted)
		}
	}
}
