//go:build ignore

// gen writes the completion scripts of this directory from the current
// command tree; `go generate ./completions` runs it.
package main

import (
	"fmt"
	"os"

	"github.com/whsim/whsim/completions"
	"github.com/whsim/whsim/internal/cli"
)

func main() {
	for _, s := range completions.Scripts() {
		b, err := cli.CompletionScript(s.Shell)
		if err == nil {
			err = os.WriteFile(s.File, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "completions:", err)
			os.Exit(1)
		}
	}
}
