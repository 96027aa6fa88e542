package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// BenchmarkStartup is what whsim does after its package initialisers for
// the runs #35's start-up row times: the allocations are the heap pages a
// process touches (each a page fault), so -benchmem is the figure to read.
func BenchmarkStartup(b *testing.B) {
	b.Chdir(b.TempDir()) // no whsim.yaml from the developer's tree
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	for _, args := range [][]string{{"--version"}, {"version"}} {
		b.Run(strings.Join(args, " "), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard},
					Build{Version: "v1.2.3", Commit: "abc", Date: "2026-11-22"}, time.Now)
				if code := Execute(context.Background(), a, args); code != cmdutil.ExitOK {
					b.Fatalf("%q: exit %d", args, code)
				}
			}
		})
	}
}
