package term

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/junitxsd"
)

// xmllintOrSkip is the xmllint binary; a test without it skips, naming it
// (scripts/install-tools.sh installs it).
func xmllintOrSkip(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (libxml2-utils; scripts/install-tools.sh installs it)")
	}
	return p
}

// Every kind of case the reporters write, a skipped one and a hostile
// name among them, is valid against Jenkins' and Surefire's schemas, with
// the suites' counts those of their cases and the target in the names.
func TestJUnitValidAgainstCISchemas(t *testing.T) {
	t.Parallel()
	xmllint := xmllintOrSkip(t)
	var out bytes.Buffer
	rep := NewJUnit(&out, "http://127.0.0.1:9/hook?token=****")
	for _, c := range []Case{
		testCase{"a", "pass", Pass, 1500 * time.Microsecond, ""}, testCase{"a", "pass2", Pass, 500 * time.Microsecond, ""},
		testCase{"a", "warn", Warn, 2 * time.Second, ""},
		testCase{"b", "fail \x1b[31m<&>\u202e", Fail, 0, ""},
		testCase{"b", "skipped", Pass, 0, "the probe is not set"},
		testCase{"c", "slow-fail", Fail, time.Hour, ""},
		// the same name again (a re-delivery, a body sent twice): JUnit
		// readers would merge them
		testCase{"a", "pass", Pass, 0, ""}, testCase{"a", "pass", Fail, 0, ""}, testCase{"a", "pass #2", Pass, 0, ""},
	} {
		if err := rep.Case(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := rep.Finish(testSummary{}); err != nil {
		t.Fatal(err)
	}
	if err := junitxsd.Check(xmllint, "../../testdata/junit", out.Bytes()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuite name="b (http://127.0.0.1:9/hook?token=****)" tests="2" failures="1" errors="0" skipped="1" time="0.000">`,
		`<skipped message="the probe is not set"></skipped>`, `time="3600.000"`, `<testsuites name="whsim test" tests="9" failures="3" errors="0" time="3602.002">`,
		`<testcase name="pass #2" classname="t"`, `<testcase name="pass #3" classname="t"`, `<testcase name="pass #2 #2" classname="t"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %s in\n%s", want, out.String())
		}
	}

	var e bytes.Buffer
	if err := WriteJUnitError(&e, "whsim send", "whsim.delivery", "cannot reach http://127.0.0.1:9/: connection refused"); err != nil {
		t.Fatal(err)
	}
	if err := junitxsd.Check(xmllint, "../../testdata/junit", e.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// The check made before this change fails Check: a report without errors,
// skipped and time attributes is refused (the test can fail).
func TestJUnitSchemasRefuseTheOldReport(t *testing.T) {
	t.Parallel()
	xmllint := xmllintOrSkip(t)
	old := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="whsim check" tests="1" failures="0">
  <testsuite name="a" tests="1" failures="0">
    <testcase name="one" classname="t"></testcase>
  </testsuite>
</testsuites>
`
	if err := junitxsd.Check(xmllint, "../../testdata/junit", []byte(old)); err == nil {
		t.Fatal("a suite without errors passed junit-10.xsd")
	}
}
