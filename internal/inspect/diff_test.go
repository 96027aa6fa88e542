package inspect

import "testing"

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
