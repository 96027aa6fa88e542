package inspect

import (
	"encoding/json"
	"strings"
	"testing"
)

// Numbers compare by their exact decimal value: 1.0000 equals 1, and two
// 19-digit ids (a snowflake id, sent as a number) that differ in their
// last digit differ. Compared as float64, beyond 2^53 or 17 significant
// digits two different numbers read the same, and the diff said the
// bodies were the same JSON.
func TestDiffComparesNumbersExactly(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{`1.0000`, `1`, true},
		{`226500.00`, `226500`, true},
		{`1e2`, `100`, true},
		{`-0`, `0`, true},
		{`1.5E-1`, `0.15`, true},
		{`1780000000000000001`, `1780000000000000002`, false},
		{`9007199254740993`, `9007199254740992`, false},
		{`0.1`, `0.10000000000000001`, false},
		{`226500.00`, `226500.01`, false},
		{`1e999999999`, `1e999999998`, false},
		{`10e999999998`, `1e999999999`, true},
	}
	for _, tt := range tests {
		a := &call{ID: 1, content: []byte(`{"n":` + tt.a + `}`)}
		b := &call{ID: 2, content: []byte(`{"n":` + tt.b + `}`)}
		d := diffBodies(a, b)
		if got := len(d.Differences) == 0; got != tt.equal {
			t.Errorf("%s against %s: the same %v (%+v), want %v", tt.a, tt.b, got, d.Differences, tt.equal)
		}
	}
}

// decimalOf reads exponents of any size without building the number.
func TestDecimalOf(t *testing.T) {
	tests := []struct {
		in   string
		want decimal
		ok   bool
	}{
		{"0", decimal{}, true},
		{"-0.000", decimal{}, true},
		{"1.0000", decimal{digits: "1"}, true},
		{"-12.50", decimal{neg: true, digits: "125", exp: -1}, true},
		{"1200", decimal{digits: "12", exp: 2}, true},
		{"1e999999999", decimal{digits: "1", exp: 999999999}, true},
		{"1E+2", decimal{digits: "1", exp: 2}, true},
		{"1e99999999999999999999", decimal{}, false},
		{"abc", decimal{}, false},
	}
	for _, tt := range tests {
		got, ok := decimalOf(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("decimalOf(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// A diff lists a bounded number of differences and counts the rest: two
// 50 KB bodies of one 10,000-byte key over 20,000 items that differ in
// each made a 201 MB answer in 7 s (each difference's path repeats the
// key) and a table of 20,000 rows for the page to build.
func TestDiffIsBounded(t *testing.T) {
	body := func(v string) []byte {
		return []byte(`{"` + strings.Repeat("k", 10000) + `":[` + strings.Repeat(v+",", 19999) + v + `]}`)
	}
	a := &call{ID: 1, content: body("1")}
	b := &call{ID: 2, content: body("2")}
	d := diffBodies(a, b)
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 2<<20 {
		t.Errorf("the diff is %d bytes, want at most 2 MiB", len(out))
	}
	if got := len(d.Differences) + d.More; got != 20000 || d.More == 0 || d.Equal {
		t.Errorf("%d differences listed and %d more (equal %v), want 20,000 in all, some not listed, not equal", len(d.Differences), d.More, d.Equal)
	}
	// Many small differences stop at a count.
	many := func(v string) []byte { return []byte(`[` + strings.Repeat(v+",", 99999) + v + `]`) }
	d = diffBodies(&call{ID: 1, content: many("1")}, &call{ID: 2, content: many("2")})
	if len(d.Differences) != maxDifferences || d.More != 100000-maxDifferences {
		t.Errorf("100,000 differences: %d listed and %d more, want %d and %d", len(d.Differences), d.More, maxDifferences, 100000-maxDifferences)
	}
}
