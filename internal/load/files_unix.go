//go:build unix

package load

import "syscall"

// raiseFileLimit raises the soft RLIMIT_NOFILE to the hard one, so that a
// run is bounded by what the system allows rather than by a shell's
// default of 1,024, and returns the soft limit then (0: unknown).
func raiseFileLimit() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = raised.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	const most = 1 << 30 // RLIM_INFINITY and the like: no bound worth telling
	if lim.Cur > most {
		return most
	}
	return int(lim.Cur)
}
