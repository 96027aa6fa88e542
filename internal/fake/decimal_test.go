package fake

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDecimalString(t *testing.T) {
	tests := []struct {
		d    Decimal
		want string
	}{
		{Money(102480), "1024.80"},
		{Decimal{71234, 4}, "7.1234"},
		{Decimal{3, 0}, "3"},
		{Money(-200), "-2.00"},
		{Money(5), "0.05"},
		{Money(-5), "-0.05"},
		{Money(0), "0.00"},
		{Decimal{1, 4}, "0.0001"},
		{Decimal{12, -2}, "1200"},
		{Decimal{math.MinInt64, 2}, "-92233720368547758.08"},
		{Decimal{math.MaxInt64, 18}, "9.223372036854775807"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.d, got, tt.want)
		}
		if got := string(tt.d.AppendJSON([]byte("x"))); got != "x"+tt.want {
			t.Errorf("%#v.AppendJSON = %q, want %q", tt.d, got, "x"+tt.want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want Decimal
		ok   bool
	}{
		{"12.5", Decimal{125, 1}, true},
		{"1024.80", Money(102480), true},
		{"-2.00", Money(-200), true},
		{"0", Decimal{0, 0}, true},
		{"-0.05", Money(-5), true},
		{"007", Decimal{7, 0}, true},
		{"9223372036854775807", Decimal{math.MaxInt64, 0}, true},
		{"-9223372036854775808", Decimal{math.MinInt64, 0}, true},
		{"9223372036854775808", Decimal{}, false},
		{"0.123456789012345678", Decimal{123456789012345678, 18}, true},
		{"0.1234567890123456789", Decimal{}, false},
		{"", Decimal{}, false},
		{"-", Decimal{}, false},
		{"1.", Decimal{}, false},
		{".5", Decimal{}, false},
		{"1e3", Decimal{}, false},
		{"1E3", Decimal{}, false},
		{"+1", Decimal{}, false},
		{"1.2.3", Decimal{}, false},
		{" 1", Decimal{}, false},
		{"1,000", Decimal{}, false},
		{"--1", Decimal{}, false},
		{"١", Decimal{}, false},
	}
	for _, tt := range tests {
		got, err := parseDecimal(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDecimal(%q) = %#v, %v; want %#v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err == nil && tt.in != "007" && got.String() != strings.TrimPrefix(tt.in, "-0") && got.String() != tt.in {
			t.Errorf("ParseDecimal(%q).String() = %q", tt.in, got.String())
		}
	}
}

func TestRescale(t *testing.T) {
	tests := []struct {
		d     Decimal
		scale int
		want  Decimal
	}{
		{Decimal{12345, 3}, 2, Money(1235)}, // half away from zero
		{Decimal{-12345, 3}, 2, Money(-1235)},
		{Decimal{12344, 3}, 2, Money(1234)},
		{Decimal{-12344, 3}, 2, Money(-1234)},
		{Decimal{5, 1}, 0, Decimal{1, 0}},
		{Decimal{-5, 1}, 0, Decimal{-1, 0}},
		{Decimal{4, 1}, 0, Decimal{0, 0}},
		{Decimal{3, 0}, 2, Money(300)},
		{Decimal{-3, 0}, 4, Decimal{-30000, 4}},
		{Decimal{math.MaxInt64, 18}, 0, Decimal{9, 0}},
		{Decimal{5_000_000_000_000_000_000, 19}, 0, Decimal{1, 0}}, // divides by 10^19
		{Decimal{4_999_999_999_999_999_999, 19}, 0, Decimal{0, 0}},
		{Decimal{-5_000_000_000_000_000_000, 19}, 0, Decimal{-1, 0}},
	}
	for _, tt := range tests {
		if got := tt.d.Rescale(tt.scale); got != tt.want {
			t.Errorf("%v.Rescale(%d) = %#v, want %#v", tt.d, tt.scale, got, tt.want)
		}
	}
}

func TestMul(t *testing.T) {
	tests := []struct {
		a, b  Decimal
		scale int
		want  string
	}{
		// Domain example: 12 × 85.40 @13% → 金额 1024.80, 税额 133.22.
		{Decimal{12, 0}, Money(8540), 2, "1024.80"},
		{Money(102480), Money(13), 2, "133.22"},
		{Money(4990), Decimal{113, 2}, 4, "56.3870"},
		{Money(1), Money(50), 2, "0.01"},   // 0.005 rounds up
		{Money(-1), Money(50), 2, "-0.01"}, // and away from zero when negative
		{Money(1), Money(49), 2, "0.00"},
		{Money(-500000), Decimal{71200, 4}, 2, "-35600.00"},
		{Decimal{1_000_000_000_00, 2}, Decimal{99999_9999, 4}, 2, "99999999900000.00"}, // 1e9 × 1e5
		{Decimal{7, 0}, Decimal{3, 0}, 3, "21.000"},
		{Decimal{123456789, 18}, Decimal{987654321, 18}, 20, "0.00000000000000000012"},
		{Decimal{15, 20}, Decimal{1, 20}, 39, "0.000000000000000000000000000000000000002"},
	}
	for _, tt := range tests {
		if got := tt.a.Mul(tt.b, tt.scale).String(); got != tt.want {
			t.Errorf("%v × %v @%d = %s, want %s", tt.a, tt.b, tt.scale, got, tt.want)
		}
	}
	if _, ok := (Decimal{math.MaxInt64, 0}).MulChecked(Decimal{2, 0}, 0); ok {
		t.Error("MaxInt64 × 2 did not report overflow")
	}
	if got, ok := (Decimal{math.MinInt64, 0}).MulChecked(Decimal{1, 0}, 0); !ok || got.Units != math.MinInt64 {
		t.Errorf("MinInt64 × 1 = %v, %v", got, ok)
	}
	if _, ok := (Decimal{math.MinInt64, 0}).MulChecked(Decimal{-1, 0}, 0); ok {
		t.Error("MinInt64 × -1 did not report overflow")
	}
}

func TestAddSub(t *testing.T) {
	tests := []struct {
		a, b     Decimal
		sum, dif string
	}{
		{Money(102480), Money(13322), "1158.02", "891.58"},
		{Decimal{3, 0}, Decimal{71234, 4}, "10.1234", "-4.1234"},
		{Money(-500), Decimal{2, 1}, "-4.80", "-5.20"},
	}
	for _, tt := range tests {
		if got := tt.a.Add(tt.b).String(); got != tt.sum {
			t.Errorf("%v + %v = %s, want %s", tt.a, tt.b, got, tt.sum)
		}
		if got := tt.a.Sub(tt.b).String(); got != tt.dif {
			t.Errorf("%v - %v = %s, want %s", tt.a, tt.b, got, tt.dif)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Add did not panic on overflow")
		}
	}()
	Decimal{math.MaxInt64, 0}.Add(Decimal{1, 0})
}

func TestFloat64(t *testing.T) {
	if got := Money(102480).Float64(); got != 1024.8 {
		t.Errorf("Float64 = %v", got)
	}
	if got := (Decimal{-12, -1}).Float64(); got != -120 {
		t.Errorf("Float64 = %v", got)
	}
}

func TestAppendJSONAllocs(t *testing.T) {
	b := make([]byte, 0, 64)
	d := Money(-102480)
	if n := testing.AllocsPerRun(100, func() { b = d.AppendJSON(b[:0]) }); n != 0 {
		t.Errorf("AppendJSON allocates %v times", n)
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"12.5", "-0.00", "1e3", "1.", ".5", "9223372036854775807", "-9223372036854775808", "0.000000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDecimal(s)
		if err != nil {
			return
		}
		e, err := parseDecimal(d.String())
		if err != nil || e != d {
			t.Fatalf("%q → %#v → %q → %#v, %v", s, d, d.String(), e, err)
		}
		if d.Rescale(d.Scale) != d {
			t.Fatalf("Rescale to own scale changed %#v", d)
		}
	})
}

// TestMulAgainstBig compares Mul with exact rational arithmetic.
func TestMulAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		a := Decimal{r.Int64N(2_000_000_000_000) - 1_000_000_000_000, r.IntN(7)}
		b := Decimal{r.Int64N(20_000_000) - 10_000_000, r.IntN(7)}
		scale := r.IntN(9)
		got, ok := a.MulChecked(b, scale)
		p := new(big.Rat).Mul(ratOf(a), ratOf(b))
		// Round half away from zero: sign × floor(|p|·10^s + 1/2).
		m := new(big.Rat).Mul(new(big.Rat).Abs(p), new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
		m.Add(m, big.NewRat(1, 2))
		q := new(big.Int).Quo(m.Num(), m.Denom())
		if p.Sign() < 0 {
			q.Neg(q)
		}
		if !q.IsInt64() {
			if ok {
				t.Fatalf("%v × %v @%d = %v, want overflow", a, b, scale, got)
			}
			continue
		}
		if want := (Decimal{q.Int64(), scale}); !ok || got != want {
			t.Fatalf("%v × %v @%d = %v (%v), want %v", a, b, scale, got, ok, want)
		}
	}
}

func ratOf(d Decimal) *big.Rat {
	return new(big.Rat).SetFrac(big.NewInt(d.Units), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
}

func TestInUnits(t *testing.T) {
	jpy, usd := Currency{Code: "JPY", Whole: true}, Currency{Code: "USD"}
	for _, tt := range []struct {
		c    Currency
		in   Decimal
		want string
	}{
		{jpy, Money(297993839), "2979938.00"},
		{jpy, Money(-437), "-4.00"},
		{jpy, Money(99), "0.00"},
		{jpy, Decimal{Units: 12, Scale: 0}, "12"},
		{usd, Money(297993839), "2979938.39"},
	} {
		if got := tt.c.InUnits(tt.in).String(); got != tt.want {
			t.Errorf("%s.InUnits(%s) = %s, want %s", tt.c.Code, tt.in, got, tt.want)
		}
	}
}
