package fake

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
)

// Decimal is a fixed-point number: Units / 10^Scale. Money uses Scale 2.
// Scale is expected in 0..18; floats never touch amounts, so the tax
// arithmetic matches what an ERP computes to the cent.
type Decimal struct {
	Units int64
	Scale int
}

// pow10 covers every scale difference an int64 can hold, plus 10^19 so that
// reducing by 19 digits still rounds correctly.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

const maxScale = 18

// Money returns an amount in cents.
func Money(cents int64) Decimal { return Decimal{Units: cents, Scale: 2} }

func (d Decimal) String() string {
	var b [32]byte
	return string(d.AppendJSON(b[:0]))
}

// AppendJSON appends d as a JSON number with exactly Scale fraction digits.
func (d Decimal) AppendJSON(b []byte) []byte {
	u := uint64(d.Units)
	if d.Units < 0 {
		b = append(b, '-')
		u = -u // also right for MinInt64
	}
	if d.Scale <= 0 {
		b = strconv.AppendUint(b, u, 10)
		for range -d.Scale {
			b = append(b, '0')
		}
		return b
	}
	var t [24]byte
	digits := strconv.AppendUint(t[:0], u, 10)
	if n := len(digits) - d.Scale; n > 0 {
		b = append(b, digits[:n]...)
		b = append(b, '.')
		return append(b, digits[n:]...)
	}
	b = append(b, '0', '.')
	for range d.Scale - len(digits) {
		b = append(b, '0')
	}
	return append(b, digits...)
}

// Float64 is for display and statistics only; arithmetic stays in Decimal.
func (d Decimal) Float64() float64 {
	if d.Scale <= 0 {
		return float64(d.Units) * math.Pow10(-d.Scale)
	}
	return float64(d.Units) / math.Pow10(d.Scale)
}

// Rescale changes the scale, rounding half away from zero when it drops digits.
// It panics if the value no longer fits an int64.
func (d Decimal) Rescale(scale int) Decimal {
	return d.Mul(Decimal{Units: 1}, scale)
}

// Add returns d+e at the larger of the two scales. It panics on overflow.
func (d Decimal) Add(e Decimal) Decimal {
	s := max(d.Scale, e.Scale)
	a, b := d.Rescale(s).Units, e.Rescale(s).Units
	r := a + b
	// Signed overflow: both operands share a sign the result does not.
	if (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0) {
		panic("fake: Decimal overflow in Add")
	}
	return Decimal{Units: r, Scale: s}
}

// Sub returns d-e at the larger of the two scales. It panics on overflow.
func (d Decimal) Sub(e Decimal) Decimal {
	if e.Units == math.MinInt64 {
		panic("fake: Decimal overflow in Sub")
	}
	return d.Add(Decimal{Units: -e.Units, Scale: e.Scale})
}

// Mul returns the exact product rounded half away from zero to scale.
// It panics on overflow; use MulChecked for untrusted input.
func (d Decimal) Mul(e Decimal, scale int) Decimal {
	r, ok := d.MulChecked(e, scale)
	if !ok {
		panic("fake: Decimal overflow in Mul")
	}
	return r
}

// MulChecked is Mul reporting overflow instead of panicking, for validators
// that multiply numbers taken from payloads.
func (d Decimal) MulChecked(e Decimal, scale int) (Decimal, bool) {
	neg := (d.Units < 0) != (e.Units < 0)
	hi, lo := bits.Mul64(abs(d.Units), abs(e.Units))
	shift := scale - d.Scale - e.Scale
	for shift > 0 { // grow: multiply the 128-bit product by 10^k
		k := min(shift, 19)
		h1, l1 := bits.Mul64(lo, pow10[k])
		h2, l2 := bits.Mul64(hi, pow10[k])
		if h2 != 0 {
			return Decimal{}, false
		}
		var c uint64
		hi, c = bits.Add64(h1, l2, 0)
		if c != 0 {
			return Decimal{}, false
		}
		lo = l1
		shift -= k
	}
	for shift < 0 { // shrink: divide, rounding only at the last step
		k := min(-shift, 19)
		y := pow10[k]
		q1, r1 := hi/y, hi%y
		q0, r0 := bits.Div64(r1, lo, y)
		shift += k
		if shift < 0 {
			// Truncating is exact here: the final half test compares whole
			// digits, and the dropped fraction can never tip it.
			hi, lo = q1, q0
			continue
		}
		if r0 >= y-r0 {
			var c uint64
			q0, c = bits.Add64(q0, 1, 0)
			q1 += c
		}
		hi, lo = q1, q0
	}
	if hi != 0 || lo > math.MaxInt64+1 || (!neg && lo > math.MaxInt64) {
		return Decimal{}, false
	}
	u := int64(lo)
	if neg {
		u = -u
	}
	return Decimal{Units: u, Scale: scale}, true
}

func abs(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

var errDecimal = errors.New("not a plain decimal number")

// parseDecimal reads -?digits(.digits)?, keeping the written scale: "12.50"
// is {1250, 2}. It rejects signs other than a leading '-', exponents, "1.",
// ".5", more than 18 fraction digits and values outside int64.
func parseDecimal(s string) (Decimal, error) {
	in := s
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var u uint64
	scale, seenDot, n := 0, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if seenDot || n == 0 || i == len(s)-1 {
				return Decimal{}, &strconv.NumError{Func: "ParseDecimal", Num: in, Err: errDecimal}
			}
			seenDot = true
			continue
		}
		if c < '0' || c > '9' {
			return Decimal{}, &strconv.NumError{Func: "ParseDecimal", Num: in, Err: errDecimal}
		}
		hi, lo := bits.Mul64(u, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 || lo > math.MaxInt64+1 {
			return Decimal{}, &strconv.NumError{Func: "ParseDecimal", Num: in, Err: strconv.ErrRange}
		}
		u = lo
		n++
		if seenDot {
			scale++
		}
	}
	if n == 0 || scale > maxScale || (!neg && u > math.MaxInt64) {
		err := errDecimal
		if n > 0 {
			err = strconv.ErrRange
		}
		return Decimal{}, &strconv.NumError{Func: "ParseDecimal", Num: in, Err: err}
	}
	v := int64(u)
	if neg {
		v = -v
	}
	return Decimal{Units: v, Scale: scale}, nil
}
