package cmdutil

// Need is a flag that does nothing without another: given without it, the
// run would look as if it had used it.
type Need struct {
	Flag, Needs, Why string
	// Without says the flag the run needs is not there.
	Without bool
}

// OnCommandLine says whether the user typed flag name for this run. A
// value from WHSIM_* or the config file, which several commands share (a
// seed for generate, a secret for check), is not refused for being of no
// use to this one.
func (a *App) OnCommandLine(name string) bool { return a.CommandLine[name] }

// Given says whether the user gave flag name a value for this run: on the
// command line, or in WHSIM_* or the config file (flag > environment >
// config > default). A flag whose meaning turns on being given (send's
// --count beside --duration) asks this, not cobra's Changed, which knows
// the command line only.
func (a *App) Given(name string) bool {
	_, filled := a.FlagSources[name]
	return a.CommandLine[name] || filled
}

// Needs refuses the first flag set on the command line without the one it
// needs (exit 2): "--seed needs --new-request-id: ...".
func (a *App) Needs(ns ...Need) error {
	for _, n := range ns {
		if n.Without && a.OnCommandLine(n.Flag[2:]) {
			return Usagef("%s needs %s: %s", n.Flag, n.Needs, n.Why)
		}
	}
	return nil
}
