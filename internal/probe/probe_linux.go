package probe

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killMarked ends every process whose environment holds mark: the ones a
// probe command started that left its process group and session (setsid,
// a daemon's double fork), which no group or session id leads back to
// once their parent has exited and they belong to init. The environment
// is inherited through fork, exec, setsid and re-parenting alike; only a
// process that clears it on purpose escapes. A process may fork while the
// others are ended, so the scan is made again until it finds none (a few
// times at most).
func killMarked(mark string) { killMarkedIn(os.ReadFile, mark) }

// killMarkedIn is killMarked reading /proc's files with read (a test
// stands in for it).
//
// A process in the middle of an exec reads, for a moment, as having no
// environment and no command line (the kernel has put in its new memory
// and not yet copied them there): a probe's child that left the group and
// execs its last command (`setsid sh -c '...; exec sleep 300'`) was
// passed over when the scan came in that moment, as it does on a loaded
// machine, and outlived its Question. Such a process is looked at again
// until it reads as one or the other, for up to a second (one that stays
// so is not a process any probe started: ours carry the mark).
func killMarkedIn(read func(name string) ([]byte, error), mark string) {
	want := []byte("\x00" + mark + "\x00")
	self := os.Getpid()
	kills := 0
	end := time.Now().Add(time.Second)
	for {
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found, undecided := false, false
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			// Unreadable (another user's, or gone): not one of ours.
			dir := "/proc/" + e.Name() + "/"
			env, err := read(dir + "environ")
			if err != nil {
				continue
			}
			if len(env) == 0 {
				undecided = undecided || midExec(read, dir)
				continue
			}
			if bytes.Contains(append(append([]byte{0}, env...), 0), want) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
		switch {
		case found:
			if kills++; kills == 8 {
				return
			}
		case !undecided || time.Now().After(end):
			return
		default:
			// Let the exec finish.
			time.Sleep(time.Millisecond)
		}
	}
}

// The flags of /proc/PID/stat that say a process has no memory of a
// program of its own for a reason other than an exec: a kernel thread, or
// one exiting.
const (
	pfExiting = 0x4
	pfKthread = 0x200000
)

// midExec says whether the process of dir (/proc/PID/), read as having
// no environment, is one in the middle of an exec: alive, neither a
// kernel thread nor exiting, with no command line either.
func midExec(read func(name string) ([]byte, error), dir string) bool {
	stat, err := read(dir + "stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndex(stat, []byte(") "))
	if i < 0 {
		return false
	}
	// state ppid pgrp session tty_nr tpgid flags ...
	f := strings.Fields(string(stat[i+2:]))
	if len(f) < 7 || strings.ContainsAny(f[0], "ZXx") {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	if err != nil || flags&(pfExiting|pfKthread) != 0 {
		return false
	}
	cmdline, err := read(dir + "cmdline")
	return err == nil && len(cmdline) == 0
}
