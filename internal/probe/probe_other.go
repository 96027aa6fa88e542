//go:build !unix

package probe

import "os/exec"

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
