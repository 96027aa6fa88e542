// Package gctune sets Go's collector for a command whose heap is mostly
// garbage made and dropped at a steady rate (listen's calls, validate's
// batches), where the environment does not set it.
package gctune

import (
	"os"
	"runtime/debug"
)

// Percent is the GOGC set unless the environment sets one.
const Percent = 400

// SoftLimit is the GOMEMLIMIT set unless the environment sets one.
const SoftLimit = 256 << 20

// Set sets GOGC to Percent and the soft memory limit to SoftLimit, each
// only where the environment (GOGC, GOMEMLIMIT) does not; restore puts back
// what was.
//
// Collecting at 5x the live heap instead of 2x: a receiver keeps little
// alive (at most its queue's calls) but allocates per call, and it took a
// tenth off listen's CPU a call under load; a streamed validate run makes
// almost no garbage once its batches are reused, and its batch buffers'
// block no longer sets off a cycle at the runtime's 4 MB start (some 170
// page faults and a stop of every worker on a 30 MB capture).
//
// The soft limit: large bodies are garbage once recorded, and at 5x the
// live heap they took listen's RSS to 850 MB; a document validate holds
// whole (up to input.Max) collects sooner near it instead of at 5x its size.
func Set() (restore func()) {
	var undo []func()
	if os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(Percent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(SoftLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}
