package anonymize

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/whsim/whsim/internal/taxid"
)

var testKey = []byte("0123456789abcdef-test-key")

func newTestReplacer(t *testing.T, key []byte) *replacer {
	t.Helper()
	r, err := newReplacer(key)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// independentUSCC is an independent statement of GB 32100 and GB 11714, written
// from the standards' text rather than shared with the code under test.
func independentUSCC(s string) bool {
	const alpha = "0123456789ABCDEFGHJKLMNPQRTUWXY"
	if len(s) != 18 {
		return false
	}
	sum := 0
	w := 1
	for i := 0; i < 17; i++ {
		v := strings.IndexByte(alpha, s[i])
		if v < 0 {
			return false
		}
		sum += v * w
		w = w * 3 % 31
	}
	if alpha[(31-sum%31)%31] != s[17] {
		return false
	}
	ow := []int{3, 7, 9, 10, 5, 8, 4, 2}
	sum = 0
	for i, c := range s[8:16] {
		switch {
		case c >= '0' && c <= '9':
			sum += int(c-'0') * ow[i]
		case c >= 'A' && c <= 'Z':
			sum += int(c-'A'+10) * ow[i]
		default:
			return false
		}
	}
	want := "0123456789X0"[11-sum%11]
	return s[16] == want
}

// independentResidentID is an independent statement of GB 11643: 17
// digits, a birth date in them, and the check character of the weights
// 2^(17-i) mod 11.
func independentResidentID(s string) bool {
	if len(s) != 18 {
		return false
	}
	sum := 0
	for i := 0; i < 17; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
		w := 1
		for range 17 - i {
			w = w * 2 % 11
		}
		sum += int(s[i]-'0') * w
	}
	month, day := s[10:12], s[12:14]
	return "10X98765432"[sum%11] == s[17] && month >= "01" && month <= "12" && day >= "01" && day <= "31"
}

func TestReplaceKeepsWhatItMust(t *testing.T) {
	r := newTestReplacer(t, testKey)
	tests := []struct {
		class class
		in    string
		check func(t *testing.T, out string)
	}{
		{TaxID, "91310115MA1FL3XK9D", func(t *testing.T, out string) {
			if !independentUSCC(out) || out[:2] != "91" {
				t.Errorf("tax id %q: want a valid USCC starting 91", out)
			}
		}},
		{TaxID, "92440300MA5EXY2B41", func(t *testing.T, out string) {
			if !independentUSCC(out) || out[:2] != "92" {
				t.Errorf("tax id %q: want a valid USCC starting 92", out)
			}
		}},
		{TaxID, "310104710932064", func(t *testing.T, out string) {
			if len(out) != 15 {
				t.Errorf("old tax id %q: want 15 characters", out)
			}
		}},
		// A sole trader's taxpayer id may be the owner's identity card
		// number: its stand-in is another person's, never a company's.
		{TaxID, "11010519491231002X", func(t *testing.T, out string) {
			if !independentResidentID(out) || independentUSCC(out) {
				t.Errorf("identity card as tax id %q: want a valid identity card number, not a USCC", out)
			}
		}},
		{TaxID, "44030419850612331601", func(t *testing.T, out string) {
			if len(out) != 20 || !independentResidentID(out[:18]) || strings.Trim(out[18:], "0123456789") != "" {
				t.Errorf("identity card and two digits as tax id %q: want a valid identity card number and two digits", out)
			}
		}},
		{TaxID, "tax-42", func(t *testing.T, out string) {
			if len(out) != 6 || out[3] != '-' {
				t.Errorf("odd tax id %q: want its shape kept", out)
			}
		}},
		{code, "SKD202603180001", func(t *testing.T, out string) {
			if !strings.HasPrefix(out, "SKD") || len(out) != 15 || strings.Trim(out[3:], "0123456789") != "" {
				t.Errorf("document number %q: want SKD and 12 digits", out)
			}
		}},
		{code, "27.09.02.03.01", func(t *testing.T, out string) {
			if len(out) != 14 || strings.Count(out, ".") != 4 || out[2] != '.' {
				t.Errorf("dotted code %q: want the dots kept", out)
			}
		}},
		{code, "E00123", func(t *testing.T, out string) {
			if out[0] != 'E' || len(out) != 6 {
				t.Errorf("employee code %q: want E and five digits", out)
			}
		}},
		{code, "华东-001", func(t *testing.T, out string) {
			if strings.Contains(out, "华东") || !strings.HasSuffix(out[:len(out)-3], "-") {
				t.Errorf("code with CJK %q: want the characters replaced and the shape kept", out)
			}
		}},
		{personName, "张璐璐", func(t *testing.T, out string) { wantHan(t, out, 2, 4) }},
		{companyName, "上海鼎盛贸易有限公司", func(t *testing.T, out string) { wantHan(t, out, 6, 30) }},
		{remark, "请尽快付款", func(t *testing.T, out string) {
			if out == "" {
				t.Error("remark: want a non-empty stand-in")
			}
		}},
		{remark, "", func(t *testing.T, out string) {
			if out != "" {
				t.Errorf("empty remark became %q: want it empty", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.class)+"/"+tt.in, func(t *testing.T) {
			out := r.Replace(tt.class, tt.in)
			if tt.in != "" && out == tt.in {
				t.Fatalf("Replace(%q) kept the value", tt.in)
			}
			tt.check(t, out)
		})
	}
}

func wantHan(t *testing.T, s string, min, max int) {
	t.Helper()
	n := 0
	for _, c := range s {
		if !unicode.Is(unicode.Han, c) {
			t.Errorf("%q: %q is not a Chinese character", s, c)
		}
		n++
	}
	if n < min || n > max {
		t.Errorf("%q: %d characters, want %d to %d", s, n, min, max)
	}
}

func TestReplaceIsKeyedAndConsistent(t *testing.T) {
	a, a2 := newTestReplacer(t, testKey), newTestReplacer(t, testKey)
	b := newTestReplacer(t, []byte("another key, also long enough"))
	values := []struct {
		c class
		v string
	}{
		{TaxID, "91310115MA1FL3XK9D"}, {code, "SKD00000365"}, {code, "CGDD2026030020"},
		{personName, "王伟"}, {companyName, "深圳市华拓电子科技有限公司"}, {code, "02010001"},
	}
	differ := 0
	for _, x := range values {
		first := a.Replace(x.c, x.v)
		if again := a.Replace(x.c, x.v); again != first {
			t.Errorf("%s %q: %q then %q under the same key", x.c, x.v, first, again)
		}
		if other := a2.Replace(x.c, x.v); other != first {
			t.Errorf("%s %q: %q and %q from two replacers with the same key", x.c, x.v, first, other)
		}
		if b.Replace(x.c, x.v) != first {
			differ++
		}
	}
	if differ < len(values)-1 {
		t.Errorf("another key changed only %d of %d stand-ins", differ, len(values))
	}
	// The class is part of the derivation: a value means something else as a
	// code than as a remark.
	if a.Replace(code, "0038") == a.Replace(TaxID, "0038") && a.Replace(code, "0039") == a.Replace(TaxID, "0039") {
		t.Error("code and tax id stand-ins coincide: the class is not keyed in")
	}
}

func TestNewReplacerRefusesShortKeys(t *testing.T) {
	if _, err := newReplacer([]byte("short")); err != errShortKey {
		t.Fatalf("NewReplacer(short) = %v, want ErrShortKey", err)
	}
}

func TestReplaceNeverReturnsTheValue(t *testing.T) {
	r := newTestReplacer(t, testKey)
	// One-character codes have ten possible stand-ins: the value itself must
	// never be one of them.
	for _, v := range []string{"0", "1", "9", "A", "x", "王"} {
		for _, c := range Classes() {
			if got := r.Replace(c, v); got == v {
				t.Errorf("Replace(%s, %q) = the value", c, v)
			}
		}
	}
}

// gbProvinces are the GB/T 2260 province-level codes, the first two digits
// of every resident identity card number's address code, written here
// from the standard rather than shared with the generator.
var gbProvinces = map[string]bool{
	"11": true, "12": true, "13": true, "14": true, "15": true,
	"21": true, "22": true, "23": true,
	"31": true, "32": true, "33": true, "34": true, "35": true, "36": true, "37": true,
	"41": true, "42": true, "43": true, "44": true, "45": true, "46": true,
	"50": true, "51": true, "52": true, "53": true, "54": true,
	"61": true, "62": true, "63": true, "64": true, "65": true,
	"71": true, "81": true, "82": true,
}

// TestIdentityCardStandInsHaveARealRegion: an identity card number's
// stand-in (a sole trader's tax id, or one found in text) starts with the
// address code of a real province. A validator a receiver runs (hutool's
// IdcardUtil, the id-validator packages) refuses a number whose first two
// digits are no province's, and about half the stand-ins were 16…, 19…,
// 24… or 59….
func TestIdentityCardStandInsHaveARealRegion(t *testing.T) {
	r := newTestReplacer(t, testKey)
	for i := range 300 {
		// Distinct valid identity card numbers, one a line.
		first17 := fmt.Sprintf("110105%04d0101%03d", 1950+i%50, i)
		c, err := taxid.ResidentIDCheck(first17)
		if err != nil {
			t.Fatal(err)
		}
		for _, cls := range []class{TaxID, IDCard} {
			out := r.Replace(cls, first17+string(c))
			if !independentResidentID(out) || !gbProvinces[out[:2]] {
				t.Fatalf("%s stand-in %q of %s%c: want a valid identity card number of a real province", cls, out, first17, c)
			}
		}
	}
}

// TestDatedNumbersKeepTheirDate: an ERP document number of the form
// PREFIX+yyyyMMdd+sequence (SKD202603180001, CGDD202609170223, as the
// generator and Kingdee write them) keeps its prefix and its date, which
// the payload's dates keep anyway, and gets another sequence. The date
// digits were drawn like any others, so the stand-in's "date" was
// SKD5981-58-53: not the format of the number it stands for, and a
// receiver that reads the date of a document number failed on the fixture.
func TestDatedNumbersKeepTheirDate(t *testing.T) {
	r := newTestReplacer(t, testKey)
	tests := []struct{ in, keep string }{
		{"SKD202603180001", "SKD20260318"},
		{"CGDD202609170223", "CGDD20260917"},
		{"AR202609180094", "AR20260918"},
		{"CGFP2026102819166535", "CGFP20261028"}, // send's numbers, 8-digit sequence
		{"SKD202402290012", "SKD20240229"},
		// Kingdee's PREFIX+yyyyMM+four-digit sequence (XSDD2026030020,
		// domain notes §5) keeps its year and month.
		{"XSDD2026030020", "XSDD202603"},
		{"CGDD2025120007", "CGDD202512"},
	}
	for _, tt := range tests {
		out := r.Replace(code, tt.in)
		if !strings.HasPrefix(out, tt.keep) || len(out) != len(tt.in) || out == tt.in ||
			strings.Trim(out[len(tt.keep):], "0123456789") != "" {
			t.Errorf("Replace(code, %q) = %q: want %s and another sequence of %d digits", tt.in, out, tt.keep, len(tt.in)-len(tt.keep))
		}
	}
	// What only looks like it: no letters before it, a month or day no
	// calendar has, too short a sequence, a year out of the ERP's range.
	for _, in := range []string{"202603180001", "SKD202613180001", "SKD202302290001", "SKD20260318001", "SKD189912310001", "SKD00000365", "XSDD2026130020", "XSDD1899030020"} {
		if out := r.Replace(code, in); strings.HasPrefix(out, in[:len(in)-4]) {
			t.Errorf("Replace(code, %q) = %q: kept more than its letters", in, out)
		}
	}
}

// TestDigitalInvoiceNumbersKeepTheirForm: a 数电 invoice number (20
// digits: the year's last two, the issuing province, the channel, a
// sequence; domain notes §2) becomes another of the same year and channel,
// of a real province. All twenty digits were drawn anew, so the stand-in
// of 26312000000919166535 began 08 99: a year and a province no invoice
// of the fixture's time has.
func TestDigitalInvoiceNumbersKeepTheirForm(t *testing.T) {
	r := newTestReplacer(t, testKey)
	for i := range 200 {
		in := fmt.Sprintf("26%s%d%015d", []string{"31", "44", "32", "11", "65"}[i%5], 1+i%2, 919166535+i)
		out := r.Replace(code, in)
		if len(out) != 20 || strings.Trim(out, "0123456789") != "" || out[:2] != in[:2] || out[4] != in[4] ||
			!gbProvinces[out[2:4]] || out[5:] == in[5:] {
			t.Fatalf("Replace(code, %q) = %q: want 20 digits, its year %s and channel %c, a real province, another sequence", in, out, in[:2], in[4])
		}
	}
	// Twenty digits without a province in digits 3-4 are no such number.
	if out := r.Replace(code, "26992000000919166535"); out[:4] == "2699" {
		t.Errorf("Replace(code, 26992000000919166535) = %q: kept its first digits", out)
	}
}
