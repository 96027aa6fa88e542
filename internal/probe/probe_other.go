//go:build !unix

package probe

import (
	"io"
	"os"
	"os/exec"
)

// ownGroup leaves cmd to exec's own cancellation: no process groups here.
func ownGroup(*exec.Cmd, string) {}

// killGroup ends the command itself.
func killGroup(cmd *exec.Cmd, _ string) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// exitedItself cannot tell here an exit status from the time limit's
// kill (which leaves one too): only a command that exited 0 surely
// ended by itself.
func exitedItself(*exec.ExitError) bool { return false }

func signalOf(*exec.ExitError) (string, bool) { return "", false }

// stopReading ends the reads of pipe: here by closing it, which drops
// what a reader has not read yet.
func stopReading(pipe *os.File) { pipe.Close() }

// takeHeld takes nothing here: the pipe is closed.
func takeHeld(*os.File, io.Writer, int64) {}
