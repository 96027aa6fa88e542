package anonymize

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// A mobile written as a JSON number (a sender that stores phones as
// integers: "phone": 13812345678, or as a double: 1.3812345678E10) is
// replaced by a number of the same form: an integer stays an integer, a
// number with an exponent keeps its exponent, so the output parses and
// validates where the input did; the same mobile is one stand-in in every
// form, --check finds the original in each, and the report counts mobile
// numbers, not echoes.
func TestMobilesAsJSONNumbersKeepTheirForm(t *testing.T) {
	t.Parallel()
	const mob = "13812345678"
	forms := []string{"13812345678", "1.3812345678E10", "1.3812345678e+10", "13812345678.0", "1.381234567800E10", "138.12345678E8"}
	var body strings.Builder
	body.WriteString(`{"businessType":4010,"data":{"comments":""`)
	for i, f := range forms {
		body.WriteString(`,"phone` + strconv.Itoa(i) + `":` + f)
	}
	body.WriteString("}}\n")
	in := []byte(body.String())
	a := newTestAnonymizer(t, testKey)
	out, st := stream(t, a, in, Options{Check: true})
	if len(st.Leaks) != 0 {
		t.Errorf("--check finds %+v in %s", st.Leaks, out)
	}
	var got struct{ Data map[string]json.RawMessage }
	mustUnmarshal(t, out, &got)
	var want float64
	for i, f := range forms {
		n := string(got.Data["phone"+strconv.Itoa(i)])
		v, err := strconv.ParseFloat(n, 64)
		if err != nil {
			t.Fatalf("%s became %q: %v", f, n, err)
		}
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if s == mob || identifierClass(s) != mobile {
			t.Errorf("%s became %s (%s), want another mobile", f, n, s)
		}
		if i == 0 {
			want = v
		} else if v != want {
			t.Errorf("%s became %s, %s became %s: one mobile, two stand-ins", forms[0], got.Data["phone0"], f, n)
		}
		integer := !strings.ContainsAny(f, ".eE")
		if integer != !strings.ContainsAny(n, ".eE") || strings.ContainsAny(f, "eE") != strings.ContainsAny(n, "eE") {
			t.Errorf("%s became %s: another form of number", f, n)
		}
	}
	if st.Replaced[mobile] == 0 || st.Replaced[Echo] != 0 {
		t.Errorf("the report counts %v, want mobile numbers and no echoes", st.Replaced)
	}
	chk, err := newTestAnonymizer(t, testKey).stream(t.Context(), bytes.NewReader(in), new(bytes.Buffer), Options{checkOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(chk.Leaks); n < len(forms) {
		t.Errorf("a check of the original finds %d leaks, want one for each of %d forms: %+v", n, len(forms), chk.Leaks)
	}
}

// A mobile stored as a number with its country code (8613812345678) keeps
// the code, and the number is the mobile's stand-in, as in text.
func TestAMobileNumberWithItsCountryCodeIsReplaced(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	in := []byte(`{"businessType":4010,"data":{"comments":"","phone":8613812345678,"tel":"+86 13812345678"}}` + "\n")
	out, st := stream(t, a, in, Options{Check: true})
	if len(st.Leaks) != 0 {
		t.Errorf("--check finds %+v in %s", st.Leaks, out)
	}
	want := "86" + a.r.Replace(mobile, "13812345678")
	if !strings.Contains(string(out), `"phone":`+want+`,`) || strings.Contains(string(out), "13812345678") {
		t.Errorf("got %s, want phone %s", out, want)
	}
}

// A number shaped like a mobile under a field named for a measure (an
// amount in cents, a quantity, a time) is that measure, and kept; the same
// digits under another name are a mobile.
func TestMobileShapedMeasuresAreKept(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	kept := `"qty":13800000000,"totalAmount":15012345678,"amount":1.5012345678E10,"createTime":13912345678,"应收金额":13712345678,"item_qty":13612345678`
	in := []byte(`{"businessType":4010,"data":{"comments":"",` + kept + `,"phone":13812345678}}` + "\n")
	out, st := stream(t, a, in, Options{Check: true})
	if len(st.Leaks) != 0 {
		t.Errorf("--check finds %+v in %s", st.Leaks, out)
	}
	if !strings.Contains(string(out), kept) {
		t.Errorf("a measure was replaced: %s", out)
	}
	if strings.Contains(string(out), "13812345678") {
		t.Errorf("the phone was kept: %s", out)
	}
}
