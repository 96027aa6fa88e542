//go:build unix

package probe

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// ownGroup starts cmd in a process group of its own, which a timeout or
// Ctrl-C ends whole: a shell's children too, and one that ignores SIGTERM.
// mark is the environment entry cmd's processes carry (killMarked).
func ownGroup(cmd *exec.Cmd, mark string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		killGroup(cmd, mark)
		return nil
	}
}

// killGroup ends every process still in cmd's group, then those that left
// it (a new session or group of their own) but carry its mark.
func killGroup(cmd *exec.Cmd, mark string) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	killMarked(mark)
}

// exitedItself says a command ended by exiting, with a status of its own,
// not by a signal (the time limit's kill is one).
func exitedItself(ee *exec.ExitError) bool { return ee.Exited() }

// signalOf is the signal that ended a command, if one did.
func signalOf(ee *exec.ExitError) (string, bool) {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	return strconv.Itoa(int(ws.Signal())) + " (" + ws.Signal().String() + ")", true
}

// stopReading ends the reads of pipe now: a read whose deadline is past
// fails before it looks.
func stopReading(pipe *os.File) {
	if pipe.SetReadDeadline(time.Now()) != nil {
		pipe.Close() // not pollable: the reader ends on the close
	}
}

// takeHeld copies to w what pipe holds now, up to room bytes, without
// waiting for more (the pipe is non-blocking: EAGAIN says empty).
func takeHeld(pipe *os.File, w io.Writer, room int64) {
	rc, err := pipe.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 32<<10)
	for room > 0 {
		n := 0
		var rerr error
		if rc.Control(func(fd uintptr) {
			for {
				n, rerr = syscall.Read(int(fd), buf[:min(int64(len(buf)), room)])
				if rerr != syscall.EINTR {
					return
				}
			}
		}) != nil || rerr != nil || n <= 0 {
			return
		}
		w.Write(buf[:n])
		room -= int64(n)
	}
}
