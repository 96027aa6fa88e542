package attempt

import (
	"strconv"
	"time"
)

// MS is a duration in milliseconds to the microsecond, as the JSON forms
// give times.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// exactMS bounds the microseconds AppendMS writes without a float: below
// it a float64 is finer than a thousandth of a millisecond, so the
// shortest decimal that reads back as MS(d) is the exact one, d's
// milliseconds to three decimals with the trailing zeros dropped.
const exactMS = 1e15

// AppendMS appends MS(d) as strconv.AppendFloat(b, MS(d), 'f', -1, 64)
// writes it, byte for byte, from the integer microseconds: every
// delivery's JSON line carries two, and the float's shortest form costs
// several times more.
func AppendMS(b []byte, d time.Duration) []byte {
	us := d.Microseconds()
	if us < 0 || us >= exactMS {
		return strconv.AppendFloat(b, MS(d), 'f', -1, 64)
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}
