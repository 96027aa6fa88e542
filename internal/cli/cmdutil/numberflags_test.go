package cmdutil

import (
	"testing"

	"github.com/spf13/cobra"
)

// An integer flag takes a whole decimal number: pflag read --count 010 as
// 8 (octal), 0x10 as 16 and 1_0 as 10. A float flag of DecimalFlag takes
// a plain decimal: 0x1p4, Inf, NaN, 1e3 and 1_0 were numbers to it. The
// flags keep their types and their Get functions.
func TestPlainNumberFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flag, val string
		want      string // the value set, as the flag says it; "" when refused
	}{
		{"count", "10", "10"},
		{"count", "010", "10"},
		{"count", "-3", "-3"},
		{"count", "0x10", ""},
		{"count", "0o17", ""},
		{"count", "1_0", ""},
		{"count", "1e1", ""},
		{"seed", "007", "7"},
		{"seed", "0b1", ""},
		{"rate", "2.5", "2.5"},
		{"rate", ".5", "0.5"},
		{"rate", "0x1p4", ""},
		{"rate", "Inf", ""},
		{"rate", "NaN", ""},
		{"rate", "1e3", ""},
		{"rate", "1_0", ""},
	} {
		var count int
		var seed uint64
		var rate float64
		root := &cobra.Command{Use: "whsim"}
		sub := &cobra.Command{Use: "send"}
		sub.Flags().IntVar(&count, "count", 1, "")
		sub.PersistentFlags().Uint64Var(&seed, "seed", 0, "")
		DecimalFlag(sub.Flags(), &rate, "rate", 0, "")
		root.AddCommand(sub)
		PlainWholeNumbers(root)
		PlainWholeNumbers(root) // twice wraps once
		f := sub.Flags().Lookup(tt.flag)
		if f == nil {
			f = sub.PersistentFlags().Lookup(tt.flag)
		}
		before := f.Value.String()
		err := f.Value.Set(tt.val)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("--%s %s: set %s, want it refused", tt.flag, tt.val, f.Value.String())
		case tt.want == "" && f.Value.String() != before:
			t.Errorf("--%s %s: refused (%v), yet set %s", tt.flag, tt.val, err, f.Value.String())
		case tt.want != "" && (err != nil || f.Value.String() != tt.want):
			t.Errorf("--%s %s: %v, set %s; want %s", tt.flag, tt.val, err, f.Value.String(), tt.want)
		}
		// A number strconv reads in another base, or with underscores,
		// says why it is refused; anything else gets its type's words.
		if w, ok := f.Value.(interface{ Want(string) string }); tt.want == "" && tt.val != "1e1" && (!ok || w.Want(tt.val) == "") {
			t.Errorf("--%s %s: refused without saying what it wants", tt.flag, tt.val)
		}
	}
	// The types the help and Get functions read are pflag's own.
	root := &cobra.Command{Use: "whsim"}
	var n int
	root.Flags().IntVar(&n, "count", 1, "")
	PlainWholeNumbers(root)
	if err := root.Flags().Set("count", "012"); err != nil {
		t.Fatal(err)
	}
	if got, err := root.Flags().GetInt("count"); got != 12 || err != nil || root.Flags().Lookup("count").Value.Type() != "int" {
		t.Errorf("GetInt = %d, %v; type %q", got, err, root.Flags().Lookup("count").Value.Type())
	}
}
