// Package completions holds whsim's shell completion scripts, generated from
// the command tree and committed so that packagers and the release archives
// can ship them without running whsim. After changing commands or flags,
// regenerate them with:
//
//	go generate ./completions
//
// A test fails while they differ from what the current command tree prints.
package completions

//go:generate go run gen.go

// Script is one completion script: its file in this directory and the shell
// `whsim completion <shell>` writes it for.
type Script struct {
	File, Shell string
}

// Scripts lists the scripts this directory holds.
func Scripts() []Script {
	return []Script{
		{"whsim.bash", "bash"},
		{"whsim.zsh", "zsh"},
		{"whsim.fish", "fish"},
		{"whsim.ps1", "powershell"},
	}
}
