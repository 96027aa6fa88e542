package validatecmd

import (
	"os"
	"runtime/debug"
)

// gcPercent is validate's GOGC unless the environment sets one.
const gcPercent = 400

// memoryLimit is validate's GOMEMLIMIT unless the environment sets one.
const memoryLimit = 256 << 20

// tuneRuntime sets the collector for a validate run, where the environment
// (GOGC, GOMEMLIMIT) does not; restore puts back what was. A streamed
// input (NDJSON, captures) leaves no garbage once its batches and results
// are reused, so the one cycle its batch buffers' 6 MiB block set off at
// the runtime's 4 MB start was all cost: on a 30 MB capture some 170 page
// faults, the collector's work and a stop of every worker. At 5x the live
// heap the first cycle waits for 16 MB, which such a run never reaches.
// The soft limit is listen's (receiver.TuneRuntime): a document near
// input.Max, the one input held whole, collects sooner near it instead of
// at 5x its size.
func tuneRuntime() (restore func()) {
	var undo []func()
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(gcPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(memoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}
