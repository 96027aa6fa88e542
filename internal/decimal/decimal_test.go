package decimal

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want float64
		err  error
	}{
		{"200", 200, nil},
		{"0.5", 0.5, nil},
		{".5", 0.5, nil},
		{"1.", 1, nil},
		{"-1", -1, nil},
		{"+0.25", 0.25, nil},
		{"007", 7, nil},
		{"0x1p-1", 0, ErrNotDecimal},
		{"0X10", 0, ErrNotDecimal},
		{"Inf", 0, ErrNotDecimal},
		{"+inf", 0, ErrNotDecimal},
		{"infinity", 0, ErrNotDecimal},
		{"NaN", 0, ErrNotDecimal},
		{"1e309", 0, ErrNotDecimal},
		{"1e3", 0, ErrNotDecimal},
		{"1_0", 0, ErrNotDecimal},
		{"_", 0, ErrNotDecimal},
		{"", 0, ErrNotDecimal},
		{".", 0, ErrNotDecimal},
		{"-", 0, ErrNotDecimal},
		{"1.2.3", 0, ErrNotDecimal},
		{" 1", 0, ErrNotDecimal},
		{"1%", 0, ErrNotDecimal},
		{"١", 0, ErrNotDecimal}, // an Arabic-Indic one
		{strings.Repeat("9", 400), 0, ErrTooLarge},
	} {
		got, err := Parse(tt.in)
		if !errors.Is(err, tt.err) || err == nil && got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// FuzzParse: what Parse takes is a finite number ParseFloat reads alike,
// and it never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0.5", "0x1p-1", "Inf", "1_0", "1e309", "-.5", "1."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		if v != v || v > 1e308 || v < -1e308 {
			t.Fatalf("Parse(%q) = %v", s, v)
		}
		if strings.ContainsAny(s, "xXpPeEiInN_") {
			t.Fatalf("Parse(%q) took it", s)
		}
	})
}

func TestWhole(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"10", "10", true},
		{"010", "10", true},
		{"0", "0", true},
		{"000", "0", true},
		{"-5", "-5", true},
		{"+7", "7", true},
		{"-007", "-7", true},
		{"0x10", "", false},
		{"0o17", "", false},
		{"0b1", "", false},
		{"1_000", "", false},
		{"1.0", "", false},
		{"1e3", "", false},
		{"", "", false},
		{"-", "", false},
		{" 1", "", false},
	} {
		got, ok := Whole(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Whole(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
