package cmdutil

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"
)

// sliceValue is a list flag's value: pflag's stringSlice, which the config
// file and WHSIM_* environment set through Replace.
type sliceValue interface {
	pflag.Value
	pflag.SliceValue
}

// oneLineList is a comma-separated list flag that refuses a line break.
// pflag reads the value as CSV and keeps its first record, its first line:
// "accepts-valid\nlatency" (the Action's args written over two lines, a
// quoted list broken for width) was accepts-valid alone, the rest dropped
// without a word.
type oneLineList struct{ sliceValue }

var errLineBreak = errors.New("a line break in a comma-separated list: write it on one line, or repeat the flag")

func (l oneLineList) Set(s string) error {
	if strings.ContainsAny(s, "\r\n") {
		return errLineBreak
	}
	return l.sliceValue.Set(s)
}

// OneLineList makes the list flag name of fs refuse a line break in a
// value given on the command line. Its type, help and completion stay.
func OneLineList(fs *pflag.FlagSet, name string) {
	f := fs.Lookup(name)
	if v, ok := f.Value.(sliceValue); ok {
		f.Value = oneLineList{v}
	}
}
