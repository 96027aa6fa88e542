package anonymize

import (
	"context"
	"strings"
	"testing"
)

// A brand's or a company's name is often made of characters people's
// names are made of (华润, 苏宁, 金龙): under a bare name key it reads as
// a person's. The object it stands in tells them apart: under an item's
// name (its other keys say price, quantity, spec, brand; or it stands in
// items, goods, 商品) it is the goods' name and kept; in a company's object
// (taxNo, creditCode, legalPerson beside it; or it stands under supplier,
// company, 企业) it is the company's and gets a company's stand-in. With
// neither, a person's name is replaced as before.
func TestANamesObjectSaysWhoseNameItIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, value string
		want              class // "": kept
	}{
		{"an item's name beside its price", `{"items":[{"name":"金龙","price":12.5,"qty":3}]}`, "金龙", ""},
		{"goods beside spec and brand", `{"x":{"name":"华丰","spec":"5L","brand":"华丰"}}`, "华丰", ""},
		{"under 商品", `{"商品":{"名称":"金诚","单价":3}}`, "金诚", ""},
		{"a supplier's name beside its tax id", `{"supplier":{"name":"华润","taxNo":"91310115MA1FL3XK9D"}}`, "华润", companyName},
		{"under company", `{"company":{"name":"苏宁"}}`, "苏宁", companyName},
		{"beside a legal person", `{"org":{"name":"金鹏","legalPerson":"x"}}`, "金鹏", companyName},
		{"a person's name with no such object", `{"user":{"name":"张伟","mobileNo":"x"}}`, "张伟", personName},
		{"alone", `{"name":"苏宁"}`, "苏宁", personName},
		// A person's 单位 (the organisation one works for) or unit is no
		// goods' unit of measure.
		{"a person beside the unit one works for", `{"name":"张伟","单位":"销售部","unit":"Sales"}`, "张伟", personName},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		out, _, err := a.Payload([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		kept := strings.Contains(string(out), `"`+tt.value+`"`)
		switch {
		case tt.want == "" && !kept:
			t.Errorf("%s: %s became %s", tt.name, tt.body, out)
		case tt.want != "" && kept:
			t.Errorf("%s: %s kept in %s", tt.name, tt.value, out)
		case tt.want != "" && !strings.Contains(string(out), `"`+a.r.Replace(tt.want, tt.value)+`"`):
			t.Errorf("%s: %s became %s, want a %s's stand-in %s", tt.name, tt.body, out, tt.want, a.r.Replace(tt.want, tt.value))
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in %s", tt.name, leaks, out)
		}
	}
}
