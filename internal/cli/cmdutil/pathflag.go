package cmdutil

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
)

// PathFlag declares a flag naming a file (dir false) or directory (dir
// true), "" (the default) for none. A value that names nothing is
// refused wherever it comes from (the command line, WHSIM_*, the config
// file), before the run: blanks (WHSIM_JUNIT=" ") were taken as a file
// named " ", written, and the run said ok while CI archived nothing; and
// an empty value typed (--junit "$UNSET") asked for a file and named
// none. An empty variable is an unset one, as for every flag, and never
// reaches Set.
func PathFlag(cmd *cobra.Command, p *string, name, shorthand string, dir bool, help string) {
	cmd.Flags().VarP(&pathValue{p: p, dir: dir}, name, shorthand, help)
}

// pathValue is PathFlag's value: a string that names something. Its Type
// is "string", as the help and Flags().GetString read it.
type pathValue struct {
	p   *string
	dir bool
}

func (v *pathValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v *pathValue) Type() string { return "string" }

func (v *pathValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New(v.Want(s))
	}
	*v.p = s
	return nil
}

// Want says what the flag takes instead of s, in the words config uses
// for every value it refuses ("want a whole number").
func (v *pathValue) Want(s string) string {
	what := "a file name"
	if v.dir {
		what = "a directory name"
	}
	if s == "" {
		return "want " + what + " (leave the flag out for none)"
	}
	return "want " + what + ", not blanks"
}
