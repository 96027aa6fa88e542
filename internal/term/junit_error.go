package term

import (
	"encoding/xml"
	"io"

	"github.com/whsim/whsim/internal/termsafe"
)

// WriteJUnitError writes the JUnit report of a run that ended before it
// judged anything (a usage error, a receiver that cannot be reached): one
// test case in error saying why, so that a CI system that reads the file
// shows the cause instead of an empty or missing report.
func WriteJUnitError(w io.Writer, title, class, why string) error {
	type jerror struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type jcase struct {
		Name      string    `xml:"name,attr"`
		Classname string    `xml:"classname,attr"`
		Time      junitTime `xml:"time,attr"`
		Error     jerror    `xml:"error"`
	}
	type jsuite struct {
		Name     string    `xml:"name,attr"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Errors   int       `xml:"errors,attr"`
		Skipped  int       `xml:"skipped,attr"`
		Time     junitTime `xml:"time,attr"`
		Case     jcase     `xml:"testcase"`
	}
	type jsuites struct {
		XMLName  xml.Name  `xml:"testsuites"`
		Name     string    `xml:"name,attr"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Errors   int       `xml:"errors,attr"`
		Time     junitTime `xml:"time,attr"`
		Suite    jsuite    `xml:"testsuite"`
	}
	why = termsafe.Text(why)
	all := jsuites{Name: title, Tests: 1, Errors: 1, Suite: jsuite{Name: title, Tests: 1, Errors: 1,
		Case: jcase{Name: "run", Classname: class, Error: jerror{Message: why, Type: "error", Text: why}}}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
