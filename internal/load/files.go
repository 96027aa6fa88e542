package load

import (
	"fmt"
	"os"
)

// fileReserve is the descriptors kept back from deliveries: the binary,
// its output files, a capture, DNS lookups and the like.
const fileReserve = 64

// files is what a run may hold open: the soft descriptor limit (after
// RaiseFileLimit) and how many are open already. Limit 0: unknown.
type files struct {
	Limit, Open int
}

// FilesNow raises the soft descriptor limit to the hard one and returns
// it with the descriptors open now.
func FilesNow() files {
	return files{Limit: raiseFileLimit(), Open: openFiles()}
}

// InFlight is how many deliveries the descriptors allow at once when
// each holds perCall of them (2 when the receiver is whsim's own, in the
// same process); 0 when the limit is unknown.
func (f files) InFlight(perCall int) int {
	if f.Limit <= 0 {
		return 0
	}
	return max((f.Limit-f.Open-fileReserve)/max(perCall, 1), 1)
}

// Fit bounds o to the work and to the sender's descriptors: no more
// workers than total deliveries (0: unknown) — ten million workers for
// four deliveries took 15 s to start — and no more deliveries in flight
// than the descriptors allow, each holding perCall. It returns the
// options and, when the descriptors lowered them, a note saying so.
func (o RunOptions) Fit(total int, f files, perCall int) (RunOptions, string) {
	flag, want := "--concurrency", o.Concurrency
	if o.Rate > 0 && o.MaxConcurrency >= o.Concurrency {
		flag, want = "--max-concurrency", o.MaxConcurrency
	}
	if total > 0 {
		o.Concurrency = min(o.Concurrency, total)
	}
	room := f.InFlight(perCall)
	if room == 0 || o.InFlight() <= room {
		return o, ""
	}
	o.Concurrency = min(o.Concurrency, room)
	if o.Rate > 0 {
		o.MaxConcurrency = min(max(o.MaxConcurrency, 1), room)
	}
	return o, fmt.Sprintf("%s %d: the file descriptor limit (ulimit -n %d, %d open) allows %d deliveries in flight; using %d",
		flag, want, f.Limit, f.Open, room, room)
}

// openFiles counts the process's open descriptors where the system lists
// them (/proc/self/fd), else guesses a few.
func openFiles() int {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 16
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 16
	}
	return len(names)
}
