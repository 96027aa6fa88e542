package cmdutil

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/decimal"
)

// DecimalFlag declares a float64 flag that takes a plain decimal number
// (decimal.Parse) wherever it comes from (the command line, WHSIM_*, the
// config file): pflag's Float64Var took --rate 0x1p4, --duplicate 1_0 or
// --fail-rate 0x1p-1 as numbers, and the run used them. Its Type is
// "float64", as the help and Flags().GetFloat64 read it.
func DecimalFlag(f *pflag.FlagSet, p *float64, name string, value float64, help string) {
	*p = value
	f.Var((*decimalValue)(p), name, help)
}

// decimalValue is DecimalFlag's value.
type decimalValue float64

func (v *decimalValue) String() string { return strconv.FormatFloat(float64(*v), 'g', -1, 64) }

func (v *decimalValue) Type() string { return "float64" }

func (v *decimalValue) Set(s string) error {
	f, err := decimal.Parse(s)
	if err != nil {
		return err
	}
	*v = decimalValue(f)
	return nil
}

// Want says what the flag takes instead of s, in the words config uses
// for every value it refuses.
func (v *decimalValue) Want(s string) string {
	_, err := decimal.Parse(s)
	if err == nil {
		return ""
	}
	return err.Error() + ": want " + decimal.Want
}
