package cli

import (
	"context"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/gctune"
)

// Main is for a process that ends when it returns: the collector setting
// validate made for its run is left as it is. Put back to GOGC 100 under
// the garbage the run left, it made the run's last allocations start a
// collection cycle as the process ended (validate_no_gc_cycle.txtar failed
// so in 1 run of 14 on a loaded machine). Execute, whose process goes on
// (a test's), puts it back.
func TestMainLeavesTheCollectorAsTheRunSetIt(t *testing.T) {
	t.Chdir(t.TempDir()) // no whsim.yaml from the developer's tree
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GOGC", "") // the run sets its own only where these say nothing
	t.Setenv("GOMEMLIMIT", "")
	if err := os.WriteFile("p.json", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(before)
	t.Cleanup(func() {
		debug.SetGCPercent(before)
		debug.SetMemoryLimit(limit)
	})
	streams := func() Streams { return Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard} }
	for _, tt := range []struct {
		name string
		run  func(args []string) int
		want int
	}{
		{"Main", func(args []string) int { return Main(context.Background(), args, streams(), Build{}) }, gctune.Percent},
		{"Execute", func(args []string) int {
			return Execute(context.Background(), cmdutil.NewApp(streams(), Build{}, time.Now), args)
		}, before},
	} {
		debug.SetGCPercent(before)
		debug.SetMemoryLimit(limit)
		if code := tt.run([]string{"validate", "p.json"}); code != cmdutil.ExitFailed {
			t.Fatalf("%s: validate of {} exited %d, want %d", tt.name, code, cmdutil.ExitFailed)
		}
		if got := debug.SetGCPercent(before); got != tt.want {
			t.Errorf("%s: GOGC %d after the run, want %d", tt.name, got, tt.want)
		}
	}
}
