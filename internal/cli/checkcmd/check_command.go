package checkcmd

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/termsafe"
)

// secretPlaceholder stands for the run's secret in a printed command:
// the variable check reads it from, so the command runs as printed where
// it is set, and the secret itself is never printed.
const secretPlaceholder = `--secret "$WHSIM_CHECK_SECRET"`

// checkCommand is a whsim check command line that runs a check of the
// run again, as printed: the URL (a password masked), the user's headers
// (a credential's value as a variable named after it), the secret as a
// placeholder, the probe and its settle time, the TLS flags. The caller
// appends --checks and what else it needs.
func checkCommand(where string, header http.Header, secret bool, opts *checkOptions) string {
	var b strings.Builder
	b.WriteString("whsim check --url " + shellcmd.Word(where))
	for _, k := range slices.Sorted(maps.Keys(header)) {
		for _, v := range header[k] {
			if termsafe.SecretHeader(k) {
				// Double quotes: the shell fills the variable in.
				b.WriteString(` -H "` + k + `: $` + headerVar(k) + `"`)
			} else {
				b.WriteString(" -H " + shellcmd.Quote(k+": "+v))
			}
		}
	}
	if secret {
		b.WriteString(" " + secretPlaceholder)
	}
	b.WriteString(probeFlags(opts.Probe, opts.ProbeCmd, opts.ProbeHeaders, opts))
	if opts.Insecure {
		b.WriteString(" --insecure")
	}
	if opts.CACert != "" {
		b.WriteString(" --cacert " + shellcmd.Word(opts.CACert))
	}
	return termsafe.Lines(b.String())
}

// probeFlags are the flags that give a probe again: its header values,
// which may be credentials, as variables named after them.
func probeFlags(url, cmd string, headers []string, opts *checkOptions) string {
	var b strings.Builder
	switch {
	case url != "":
		b.WriteString(" --probe " + shellcmd.Quote(url))
		for _, h := range headers {
			k, _, _ := strings.Cut(h, ":")
			k = strings.TrimSpace(k)
			b.WriteString(` --probe-header "` + k + `: $` + headerVar(k) + `"`)
		}
	case cmd != "":
		b.WriteString(" --probe-cmd " + shellcmd.Quote(cmd))
	default:
		return ""
	}
	if opts != nil && opts.Settle != check.DefaultSettle {
		b.WriteString(" --settle " + opts.Settle.String())
	}
	return b.String()
}

// headerVar is the variable a printed command reads a header's value
// from: X-Api-Key is $X_API_KEY.
func headerVar(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}
