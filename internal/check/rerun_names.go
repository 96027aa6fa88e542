package check

import (
	"fmt"
	"regexp"
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
// at once (Config.Concurrent, 2 to MaxCopies).
var (
	loadNamePattern      = regexp.MustCompile(`^[1-9][0-9]{0,8}-calls-at-[1-9][0-9]{0,8}$`)
	underLoadNamePattern = regexp.MustCompile(`^under-load/[0-9]{1,9}-of-[0-9]{1,9}-documents$`)
	atOncePattern        = regexp.MustCompile(`concurrent-x([0-9]{1,3})$`)
)

func (k knownNames) has(check, name string) bool {
	names, ok := k[check]
	switch {
	case !ok:
		return false
	case names[name]:
		return true
	case check == Load:
		return loadNamePattern.MatchString(name)
	case check == Effects && underLoadNamePattern.MatchString(name):
		return true
	}
	m := atOncePattern.FindStringSubmatchIndex(name)
	if m == nil {
		return false
	}
	n, err := strconv.Atoi(name[m[2]:m[3]])
	if err != nil || n < 2 || n > MaxCopies {
		return false
	}
	return names[name[:m[2]]+strconv.Itoa(DefaultConcurrent)]
}

// caseNames are the names of the cases of every check, as a run with the
// default copies at once builds them (excludable: what --exclude-cases is
// asked about), with the load's result and effects' under load.
func caseNames() (knownNames, error) {
	val, err := validate.New(validate.Options{})
	if err != nil {
		return nil, err
	}
	now := func() time.Time { return time.Unix(0, 0) }
	r := &runner{cfg: Config{Concurrent: DefaultConcurrent, LoadCount: DefaultLoadCount, LoadConcurrency: DefaultLoadConcurrency, Now: now}, val: val}
	b := newBuilder(0, now(), 0)
	known := knownNames{}
	for _, id := range IDs() {
		cs, err := r.excludable(b, id)
		if err != nil {
			return nil, err
		}
		known[id] = map[string]bool{}
		for _, c := range cs {
			known[id][c.Name] = true
		}
	}
	return known, nil
}
