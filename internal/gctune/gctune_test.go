package gctune

import (
	"runtime/debug"
	"testing"
)

// Set leaves what the environment sets alone and restores what it changed.
func TestSet(t *testing.T) {
	for _, env := range []struct{ gogc, limit string }{{"", ""}, {"100", "1GiB"}, {"", "1GiB"}, {"100", ""}} {
		t.Setenv("GOGC", env.gogc)
		t.Setenv("GOMEMLIMIT", env.limit)
		gc, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
		debug.SetGCPercent(gc)
		restore := Set()
		nowGC, nowLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
		debug.SetGCPercent(nowGC)
		if (nowGC == Percent) != (env.gogc == "") || (nowLimit == SoftLimit) != (env.limit == "") {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: GC %d, limit %d", env.gogc, env.limit, nowGC, nowLimit)
		}
		restore()
		if g := debug.SetGCPercent(gc); g != gc || debug.SetMemoryLimit(-1) != limit {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: not restored: GC %d, want %d", env.gogc, env.limit, g, gc)
		}
	}
}
