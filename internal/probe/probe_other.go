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

func signalOf(*exec.ExitError) (string, bool) { return "", false }
