package cli

// need is a flag that does nothing without another: given without it, the
// run would look as if it had used it.
type need struct {
	flag, needs, why string
	// without says the flag the run needs is not there.
	without bool
}

// onCommandLine says whether the user typed flag name for this run. A
// value from WHSIM_* or the config file, which several commands share (a
// seed for generate, a secret for check), is not refused for being of no
// use to this one.
func (a *app) onCommandLine(name string) bool { return a.cmdline[name] }

// needs refuses the first flag set on the command line without the one it
// needs (exit 2): "--seed needs --new-request-id: ...".
func (a *app) needs(ns ...need) error {
	for _, n := range ns {
		if n.without && a.onCommandLine(n.flag[2:]) {
			return usagef("%s needs %s: %s", n.flag, n.needs, n.why)
		}
	}
	return nil
}

// maxConcurrencyNeed is send's and replay's: without --rate, --concurrency
// alone bounds the deliveries in flight.
func (d *deliveryFlags) maxConcurrencyNeed() need {
	return need{flag: "--max-concurrency", needs: "--rate", without: d.Rate == 0,
		why: "without a rate, --concurrency is the deliveries in flight"}
}

// secretNeed is send's and replay's: a secret alone signs nothing.
func secretNeed(signScheme, secret string, what string) need {
	return need{flag: "--secret", needs: "--sign standard", without: signScheme == "" && secret != "", why: what}
}
