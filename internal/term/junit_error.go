package term

import (
	"bufio"
	"io"

	"github.com/whsim/whsim/internal/termsafe"
)

// WriteJUnitError writes the JUnit report of a run that ended before it
// judged anything (a usage error, a receiver that cannot be reached): one
// test case in error saying why, so that a CI system that reads the file
// shows the cause instead of an empty or missing report.
func WriteJUnitError(w io.Writer, title, class, why string) error {
	why = termsafe.Text(why)
	run := xmlElement{name: "testcase", attrs: []xmlAttr{{"name", "run"}, {"classname", class}, {"time", junitSeconds(0)}},
		children: []xmlElement{{name: "error", attrs: []xmlAttr{{"message", why}, {"type", "error"}}, text: why}}}
	suite := xmlElement{name: "testsuite", attrs: []xmlAttr{
		{"name", title}, {"tests", "1"}, {"failures", "0"}, {"errors", "1"}, {"skipped", "0"}, {"time", junitSeconds(0)},
	}, children: []xmlElement{run}}
	all := xmlElement{name: "testsuites", attrs: []xmlAttr{
		{"name", title}, {"tests", "1"}, {"failures", "0"}, {"errors", "1"}, {"time", junitSeconds(0)},
	}, children: []xmlElement{suite}}
	bw := bufio.NewWriter(w)
	bw.WriteString(xmlHeader)
	writeXML(bw, all, 0)
	bw.WriteByte('\n')
	return bw.Flush()
}
