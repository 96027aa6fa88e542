package cmdutil

import (
	"reflect"
	"testing"

	"github.com/spf13/cobra"
)

// A WHSIM_* variable no command reads is ignored: one a typo away from a
// real one (WHSIM_SEND_URLL) left send to its own built-in receiver and
// the job passed. It is said, with the name meant; another tool's
// WHSIM_ variable, far from every name, is not.
func TestMistypedEnv(t *testing.T) {
	root := &cobra.Command{Use: "whsim"}
	root.PersistentFlags().Bool("no-color", false, "")
	send := &cobra.Command{Use: "send"}
	send.Flags().String("url", "", "")
	send.Flags().Int("count", 1, "")
	gen := &cobra.Command{Use: "generate"}
	gen.Flags().Int("seed", 0, "")
	gen.Flags().String("shape", "", "")
	export := &cobra.Command{Use: "export"}
	k6 := &cobra.Command{Use: "k6"}
	k6.Flags().String("out", "", "")
	export.AddCommand(k6)
	version := &cobra.Command{Use: "version"}
	root.AddCommand(send, gen, export, version)
	tree := func() *cobra.Command { return root }
	for _, tc := range []struct {
		name    string
		cmd     *cobra.Command
		environ []string
		want    [][2]string
	}{
		{"empty, as unset", gen, []string{"WHSIM_SEND_URLL="}, nil},
		{"none", gen, []string{"HOME=/root", "WHSIM_SEED=1"}, nil},
		{"another command's", gen, []string{"WHSIM_SEND_URL=x", "WHSIM_EXPORT_K6_OUT=d"}, nil},
		{"a typo of another command's", gen, []string{"WHSIM_SEND_URLL=x"}, [][2]string{{"WHSIM_SEND_URLL", "WHSIM_SEND_URL"}}},
		{"a typo of its own", gen, []string{"WHSIM_GENERATE_SHAP=x", "WHSIM_SEDD=1"},
			[][2]string{{"WHSIM_GENERATE_SHAP", "WHSIM_GENERATE_SHAPE"}, {"WHSIM_SEDD", "WHSIM_SEED"}}},
		{"a subcommand's typo", send, []string{"WHSIM_EXPORT_K6_OTU=d"}, [][2]string{{"WHSIM_EXPORT_K6_OTU", "WHSIM_EXPORT_K6_OUT"}}},
		{"names whsim reads or sets that are no flag", send, []string{"WHSIM_CONFIG=x", "WHSIM_TRANSPORT=net/http", "WHSIM_KIND=receipt", "WHSIM_NPM_TOOLS=x", "WHSIM_TEST_FD=1"}, nil},
		{"far from every name", send, []string{"WHSIM_SOMETHING_ELSE=1", "WHSIM_=1"}, nil},
		{"a command that reads no environment", version, []string{"WHSIM_SEND_URLL=x"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MistypedEnv(tc.cmd, tc.environ, tree)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
