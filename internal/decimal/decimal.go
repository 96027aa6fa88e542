// Package decimal reads the numbers people type where whsim takes a rate,
// a share or a threshold (--rate, --duplicate, --fail-rate, a --fault
// rate, a --threshold value, and the same in a config file): plain
// decimals, digits with an optional point (200, 0.5, .5, 1.), an optional
// sign before them; and the whole numbers of its integer flags (Whole). strconv.ParseFloat, which read them before, also
// takes hex floats (0x1p-1), Inf, NaN, underscores (1_0) and exponents
// (1e309, which is +Inf): none is what anyone means by a rate or a share,
// and each reached the run as a value no message described (--fault
// drop=0x1p-1 dropped half of the calls).
package decimal

import (
	"errors"
	"strconv"
	"strings"
)

// ErrNotDecimal is a value that is no plain decimal number.
var ErrNotDecimal = errors.New("not a decimal number")

// ErrTooLarge is a plain decimal too large for a float64 (a few hundred
// digits).
var ErrTooLarge = errors.New("too large a number")

// Want says in words what Parse takes, for a message after its error.
const Want = "digits with an optional point, such as 200 or 0.5"

// Parse reads s, a plain decimal number.
func Parse(s string) (float64, error) {
	if !plain(s) {
		return 0, ErrNotDecimal
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Only a range error is left: the syntax is ParseFloat's own.
		return 0, ErrTooLarge
	}
	return v, nil
}

// plain says whether s is a sign, then digits with at most one point,
// and at least one digit.
func plain(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// Whole reads s as a whole decimal number, an optional sign and digits,
// and returns it as strconv reads it in any base: leading zeros taken off
// ("010" is 10, where strconv.ParseInt(s, 0, 64), which pflag reads its
// integer flags with, takes it for octal 8, 0x10 for 16 and 1_0 for 10).
// ok is false for anything else.
func Whole(s string) (canonical string, ok bool) {
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], s[1:]
	}
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return "", false
	}
	if s = strings.TrimLeft(s, "0"); s == "" {
		s = "0"
	}
	if sign == "+" {
		sign = ""
	}
	return sign + s, true
}
