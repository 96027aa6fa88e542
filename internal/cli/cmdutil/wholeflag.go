package cmdutil

import (
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/decimal"
)

// PlainWholeNumbers makes every integer flag of cmd and its subcommands
// take a whole decimal number only, wherever it comes from (the command
// line, WHSIM_*, the config file): pflag reads them with
// strconv.ParseInt(s, 0, 64), which took --count 010 for 8 (octal),
// 0x10 for 16 and 1_0 for 10. A leading zero is a decimal's again. The
// flags keep their types, for the help and Flags().GetInt.
func PlainWholeNumbers(cmd *cobra.Command) {
	wrap := func(f *pflag.Flag) {
		if _, done := f.Value.(wholeValue); done {
			return
		}
		switch f.Value.Type() {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
			f.Value = wholeValue{f.Value}
		}
	}
	cmd.Flags().VisitAll(wrap)
	cmd.PersistentFlags().VisitAll(wrap)
	for _, sub := range cmd.Commands() {
		PlainWholeNumbers(sub)
	}
}

// wholeValue is an integer flag's value that takes whole decimals only.
type wholeValue struct{ pflag.Value }

var errNotWhole = errors.New("not a decimal number")

func (v wholeValue) Set(s string) error {
	n, ok := decimal.Whole(s)
	if !ok {
		return errNotWhole
	}
	return v.Value.Set(n)
}

// Want says what the flag takes instead of s when s is a number in
// another base or with underscores, which strconv reads and whsim does
// not; "" leaves the rest to the words config has for the flag's type
// ("want a whole number", a number too large for it, a negative one for
// a uint).
func (v wholeValue) Want(s string) string {
	if _, ok := decimal.Whole(s); ok {
		return ""
	}
	if _, err := strconv.ParseInt(strings.TrimPrefix(s, "-"), 0, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return "" // no number in any base
	}
	if strings.HasPrefix(v.Type(), "uint") {
		return errNotWhole.Error() + ": want a whole number, 0 or more"
	}
	return errNotWhole.Error() + ": want a whole number such as 10"
}
