// Command whsim simulates a business-document system's webhooks.
package main

import (
	"context"
	"os"

	"github.com/whsim/whsim/internal/cli"
)

// Set by release builds through -ldflags.
var version, commit, date string

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.OSStreams(), cli.Build{Version: version, Commit: commit, Date: date}))
}
