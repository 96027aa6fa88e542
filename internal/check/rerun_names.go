package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// UnknownCasesError is a report's failed cases that no check of this
// whsim has: a rerun would send, and judge by the rules of the check it
// names, a case that is no check's (a report edited, or of another
// version). Cases are "check name", terminal-safe and cut short.
type UnknownCasesError struct{ Cases []string }

func (e *UnknownCasesError) Error() string {
	what := "a failed case no check has"
	if len(e.Cases) > 1 {
		what = fmt.Sprintf("%d failed cases no check has", len(e.Cases))
	}
	shown := e.Cases
	if len(shown) > maxUnknownShown {
		shown = append(slices.Clip(shown[:maxUnknownShown]), fmt.Sprintf("and %d more", len(e.Cases)-maxUnknownShown))
	}
	return fmt.Sprintf("%s: %s (a report edited, or of another whsim version): a rerun sends only a run's cases, which whsim check --output json lists, one line each (its \"check\" and \"case\"), and --save-cases DIR as DIR/<check>/<case>.ndjson", what, strings.Join(shown, ", "))
}

// maxUnknownShown is how many unknown cases an error names: an edited
// report may hold a thousand.
const maxUnknownShown = 5

// maxNameShown is how much of a case's name an error shows: a report may
// name one with megabytes.
const maxNameShown = 80

// UnknownCases returns the failed cases that name a check this whsim does
// not have, or a case no run of theirs reports: each name as an error
// shows it (UnknownCasesError).
func UnknownCases(cases []Failed) ([]string, error) {
	known, err := caseNames()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cases {
		if !known.has(c.Check, c.Name) {
			out = append(out, shownName(c.Check)+" "+shownName(c.Name))
		}
	}
	return out, nil
}

// shownName is a name read from a report as an error shows it:
// terminal-safe, and cut short with its length said.
func shownName(s string) string {
	if utf8.RuneCountInString(s) <= maxNameShown {
		return termsafe.Text(s)
	}
	cut := s
	for i := range s {
		if utf8.RuneCountInString(s[:i]) == maxNameShown {
			cut = s[:i]
			break
		}
	}
	return termsafe.Text(cut) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// knownNames are the case names each check's runs report.
type knownNames map[string]map[string]bool

// Names that depend on how the run was made: the load's calls and
// concurrency, the documents effects probed under load, and copies sent
// at once (Config.Concurrent, 2 to MaxCopies). Read by hand, not by
// regexps: a package-level regexp is compiled before main in every
// process (TestNoPackageLevelCompiles), and these are read only here.
const (
	loadNameSep      = "-calls-at-"  // 300-calls-at-16
	underLoadPrefix  = "under-load/" // under-load/3-of-5-documents
	underLoadSep     = "-of-"
	underLoadSuffix  = "-documents"
	atOnceNameMarker = "concurrent-x" // CREATE_RECEIVABLE_DOC/concurrent-x8
)

// isLoadName says whether name is the load's, N-calls-at-C, each a whole
// number from 1 with at most nine digits.
func isLoadName(name string) bool {
	calls, conc, ok := strings.Cut(name, loadNameSep)
	return ok && isDigits(calls, 9, true) && isDigits(conc, 9, true)
}

// isUnderLoadName says whether name is effects' under load,
// under-load/D-of-N-documents, each of one to nine digits.
func isUnderLoadName(name string) bool {
	rest, ok := strings.CutPrefix(name, underLoadPrefix)
	if !ok {
		return false
	}
	if rest, ok = strings.CutSuffix(rest, underLoadSuffix); !ok {
		return false
	}
	d, n, ok := strings.Cut(rest, underLoadSep)
	return ok && isDigits(d, 9, false) && isDigits(n, 9, false)
}

// atOnceCopies splits a name ending in concurrent-xN (N of one to three
// digits) into what comes before N and N; ok is false for another name.
func atOnceCopies(name string) (prefix string, n int, ok bool) {
	i := strings.LastIndex(name, atOnceNameMarker)
	if i < 0 {
		return "", 0, false
	}
	end := i + len(atOnceNameMarker)
	if !isDigits(name[end:], 3, false) {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[end:])
	return name[:end], n, err == nil
}

// isDigits says whether s is one to max ASCII digits, the first not 0
// when nonZeroFirst.
func isDigits(s string, max int, nonZeroFirst bool) bool {
	if s == "" || len(s) > max || (nonZeroFirst && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (k knownNames) has(check, name string) bool {
	names, ok := k[check]
	switch {
	case !ok:
		return false
	case names[name]:
		return true
	case check == Load:
		return isLoadName(name)
	case check == Effects && isUnderLoadName(name):
		return true
	}
	prefix, n, ok := atOnceCopies(name)
	if !ok || n < 2 || n > MaxCopies {
		return false
	}
	return names[prefix+strconv.Itoa(DefaultConcurrent)]
}

// caseNames are the names of the cases of every check, as a run with the
// default copies at once builds them (excludable: what --exclude-cases is
// asked about), with the load's result and effects' under load.
func caseNames() (knownNames, error) {
	known := knownNames{}
	err := eachCase(DefaultLoadCount, DefaultLoadConcurrency, func(c *Case) {
		if known[c.Check] == nil {
			known[c.Check] = map[string]bool{}
		}
		known[c.Check][c.Name] = true
	})
	return known, err
}

// CaseNames are the cases of every check as --exclude-cases matches them,
// "check/name" in run order, as a run with the default copies at once and
// a load of loadCount calls at loadConcurrency builds them (its result is
// named by them, "300-calls-at-16"): what shell completion offers.
// Effects' documents of the load check are named by their run, so they
// are offered as the glob that leaves them all out, "effects/under-load/*".
func CaseNames(loadCount, loadConcurrency int) ([]string, error) {
	var out []string
	err := eachCase(loadCount, loadConcurrency, func(c *Case) {
		name := c.Name
		if c.Check == Effects && name == underLoadCase().Name {
			name += "*"
		}
		out = append(out, c.Check+"/"+name)
	})
	return out, err
}

// eachCase calls f with every check's cases in run order, as a run with
// the default copies at once and that load builds them (excludable).
func eachCase(loadCount, loadConcurrency int, f func(*Case)) error {
	val, err := validate.New(validate.Options{})
	if err != nil {
		return err
	}
	now := func() time.Time { return time.Unix(0, 0) }
	r := &runner{cfg: Config{Concurrent: DefaultConcurrent, LoadCount: loadCount, LoadConcurrency: loadConcurrency, Now: now}, val: val}
	b := newBuilder(0, now(), 0)
	for _, id := range IDs() {
		cs, err := r.excludable(b, id)
		if err != nil {
			return err
		}
		for _, c := range cs {
			f(c)
		}
	}
	return nil
}
