package term

import (
	"io"

	"github.com/whsim/whsim/internal/termsafe"
)

// WriteJUnitError writes the JUnit report of a run that ended before it
// judged anything (a usage error, a receiver that cannot be reached): one
// test case in error saying why, so that a CI system that reads the file
// shows the cause instead of an empty or missing report.
func WriteJUnitError(w io.Writer, title, class, why string) error {
	why = termsafe.Text(why)
	run := junitCase{Name: "run", Classname: class, Error: &junitFailure{Message: why, Type: "error", Text: why}}
	return writeJUnit(w, junitSuites{Name: title, Tests: 1, Errors: 1,
		Suites: []*junitSuite{{Name: title, Tests: 1, Errors: 1, Cases: []junitCase{run}}}})
}
