package term

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"testing"
	"time"
)

// The JUnit reports were written by encoding/xml; writeXML must write
// every byte as it did. The structs are the ones the reports marshalled.
type (
	oldSuites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr"`
		Time     oldTime    `xml:"time,attr"`
		Suites   []oldSuite `xml:"testsuite"`
	}
	oldSuite struct {
		Name     string    `xml:"name,attr"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Errors   int       `xml:"errors,attr"`
		Skipped  int       `xml:"skipped,attr"`
		Time     oldTime   `xml:"time,attr"`
		Cases    []oldCase `xml:"testcase"`
	}
	oldCase struct {
		Name      string      `xml:"name,attr"`
		Classname string      `xml:"classname,attr"`
		Time      oldTime     `xml:"time,attr"`
		Failure   *oldFailure `xml:"failure,omitempty"`
		Skipped   *oldSkipped `xml:"skipped,omitempty"`
		SystemOut string      `xml:"system-out,omitempty"`
	}
	oldSkipped struct {
		Message string `xml:"message,attr"`
	}
	oldFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	oldTime time.Duration
)

func (t oldTime) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: junitSeconds(time.Duration(t))}, nil
}

func oldJUnit(t *testing.T, all oldSuites) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		t.Fatal(err)
	}
	return b.String() + "\n"
}

// awkward are texts XML must escape or replace: markup, quotes, the three
// control characters XML keeps as references, ones it cannot hold, a byte
// that is no UTF-8, U+FFFD itself, and text outside the BMP.
var awkward = []string{
	"", "plain", `<a href="x">&'`, "tab\tnew\nline\r\n", "nul\x00bell\x07", "bad\xffutf8",
	"\uFFFD", "\uFFFE", "\U0001F600 ok", "收款单 (target)", "\u2028\u202e",
}

func TestWriteXMLAsEncodingXML(t *testing.T) {
	t.Parallel()
	for _, s := range awkward {
		var suites []oldSuite
		var total oldTime
		var j junit
		for i, shape := range []oldCase{
			{Name: s, Classname: s, Time: oldTime(1500 * time.Microsecond), SystemOut: s},
			{Name: "f", Classname: "c", Failure: &oldFailure{Message: s, Type: "failure", Text: s}},
			{Name: "s", Classname: "c", Skipped: &oldSkipped{Message: s}, SystemOut: s},
			{Name: "bare", Classname: "c", Time: oldTime(-time.Second)},
		} {
			suites = append(suites, oldSuite{Name: s, Tests: 1, Failures: i % 2, Skipped: i / 2, Time: shape.Time, Cases: []oldCase{shape}})
			c := junitCase{Name: shape.Name, Classname: shape.Classname, Time: time.Duration(shape.Time), SystemOut: shape.SystemOut}
			if f := shape.Failure; f != nil {
				c.Failure = &junitFailure{Message: f.Message, Type: f.Type, Text: f.Text}
			}
			if shape.Skipped != nil {
				c.Skipped = &junitSkipped{Message: shape.Skipped.Message}
			}
			total += shape.Time
			j.suites = append(j.suites, &junitSuite{Name: s, Tests: 1, Failures: i % 2, Skipped: i / 2, Time: c.Time, Cases: []junitCase{c}})
		}
		want := oldJUnit(t, oldSuites{Name: s, Tests: 4, Failures: 2, Time: total, Suites: suites})
		var out bytes.Buffer
		j.w = bufio.NewWriter(&out)
		if err := j.Finish(titled(s)); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("for %q:\n got %s\nwant %s", s, out.String(), want)
		}
	}
	// No suites: an empty testsuites element on one line.
	var out bytes.Buffer
	j := junit{w: bufio.NewWriter(&out)}
	if err := j.Finish(titled("none")); err != nil {
		t.Fatal(err)
	}
	if want := oldJUnit(t, oldSuites{Name: "none"}); out.String() != want {
		t.Errorf("no suites:\n got %s\nwant %s", out.String(), want)
	}
}

func TestWriteJUnitErrorAsEncodingXML(t *testing.T) {
	t.Parallel()
	type (
		jerror struct {
			Message string `xml:"message,attr"`
			Type    string `xml:"type,attr"`
			Text    string `xml:",chardata"`
		}
		jcase struct {
			Name      string  `xml:"name,attr"`
			Classname string  `xml:"classname,attr"`
			Time      oldTime `xml:"time,attr"`
			Error     jerror  `xml:"error"`
		}
		jsuite struct {
			Name     string  `xml:"name,attr"`
			Tests    int     `xml:"tests,attr"`
			Failures int     `xml:"failures,attr"`
			Errors   int     `xml:"errors,attr"`
			Skipped  int     `xml:"skipped,attr"`
			Time     oldTime `xml:"time,attr"`
			Case     jcase   `xml:"testcase"`
		}
		jsuites struct {
			XMLName  xml.Name `xml:"testsuites"`
			Name     string   `xml:"name,attr"`
			Tests    int      `xml:"tests,attr"`
			Failures int      `xml:"failures,attr"`
			Errors   int      `xml:"errors,attr"`
			Time     oldTime  `xml:"time,attr"`
			Suite    jsuite   `xml:"testsuite"`
		}
	)
	for _, s := range awkward {
		var want bytes.Buffer
		want.WriteString(xml.Header)
		enc := xml.NewEncoder(&want)
		enc.Indent("", "  ")
		// WriteJUnitError makes why terminal-safe first; these texts are
		// given as they arrive at the encoder.
		if err := enc.Encode(jsuites{Name: s, Tests: 1, Errors: 1, Suite: jsuite{Name: s, Tests: 1, Errors: 1,
			Case: jcase{Name: "run", Classname: s, Error: jerror{Message: "why", Type: "error", Text: "why"}}}}); err != nil {
			t.Fatal(err)
		}
		want.WriteString("\n")
		var got bytes.Buffer
		if err := WriteJUnitError(&got, s, s, "why"); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("for %q:\n got %s\nwant %s", s, got.String(), want.String())
		}
	}
}

// titled is a summary that only names the run.
type titled string

func (t titled) Title() string                      { return string(t) }
func (titled) AppendText(b []byte, _ *Style) []byte { return b }
func (titled) AppendJSON(b []byte) []byte           { return b }

// FuzzXMLEscaped: any text is escaped as encoding/xml escapes it.
func FuzzXMLEscaped(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		if err := xml.EscapeText(&want, []byte(s)); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		writeXMLEscaped(w, s)
		w.Flush()
		if got.String() != want.String() {
			t.Errorf("writeXMLEscaped(%q) = %q, want %q", s, got.String(), want.String())
		}
	})
}
