package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/suggest"
)

var (
	unknownFlag = regexp.MustCompile(`^unknown flag: --([^\s=]+)`)
	badArgument = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\S, )?--([^"]+)" flag: `)
)

// flagError rewrites pflag's errors for people: an unknown flag gets the
// nearest of the command's flags, and a bad number or duration says what
// it wants instead of quoting strconv.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if c, ok := suggest.Closest(m[1], names); ok {
			msg += fmt.Sprintf(" (did you mean --%s?)", c)
		}
	} else if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
		msg += " (-v is --verbose, in send, replay and listen; the version is --version)"
	} else if m := badArgument.FindStringSubmatch(msg); m != nil {
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			if want := wantValue(f); want != "" {
				msg = fmt.Sprintf("invalid argument %q for \"--%s\": %s", m[1], f.Name, want)
			}
		}
	}
	return usagef("%s: %s", cmd.CommandPath(), msg)
}

// wantValue says what a flag of a standard type takes, "" for the types
// whose own errors already say so.
func wantValue(f *pflag.Flag) string {
	switch t := f.Value.Type(); {
	case strings.HasPrefix(t, "uint"):
		return "want a whole number, 0 or more"
	case strings.HasPrefix(t, "int"):
		return "want a whole number"
	case strings.HasPrefix(t, "float"):
		return "want a number"
	case t == "bool":
		return "want true or false"
	case t == "duration":
		return "want a duration such as 500ms, 10s or 1m30s"
	}
	return ""
}
