// Package versioncmd is whsim version: the version, commit, build date
// and Go version of the binary.
package versioncmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

type versionOptions struct {
	Output string
}

// New is whsim version.
func New(a *cmdutil.App) *cobra.Command {
	opts := &versionOptions{}
	cmd := &cobra.Command{
		Use:   "version [--output text|json]",
		Short: "Print the version, commit, build date and Go version",
		Long: `Print whsim's version, the commit it was built from, the build date, the Go
version and the platform; the same text as --version. A build from source says
"dev" and takes the commit from the module's build information when the go
command recorded it.`,
		Example: `  whsim version
  whsim version --output json | jq -r .version`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			return runVersion(cmd.Context(), a, opts)
		}),
	}
	cmdutil.AddOutputFlag(cmd, &opts.Output, "text", "text", "json")
	return cmd
}

func runVersion(_ context.Context, a *cmdutil.App, opts *versionOptions) error {
	out, b := a.Streams.Out, a.Build
	if opts.Output == "json" {
		return json.NewEncoder(out).Encode(b.Resolve())
	}
	_, err := fmt.Fprintln(out, b.String())
	return err
}
