package term

import (
	"bytes"
	"encoding/xml"
	"strings"
	"sync"
	"testing"
	"time"
)

type testCase struct {
	suite, name string
	v           Verdict
	took        time.Duration
	skipped     string
}

func (c testCase) Verdict() Verdict { return c.v }
func (c testCase) AppendText(b []byte, st *Style) []byte {
	return append(st.Fail.Append(append(b, c.name...), "!"), '\n')
}
func (c testCase) AppendJSON(b []byte, _ *Style) []byte {
	return append(b, `{"name":"`+c.name+`"}`+"\n"...)
}
func (c testCase) JUnit() TestCase {
	tc := TestCase{Suite: c.suite, Name: c.name, Class: "t", Detail: "said", Time: c.took, Skipped: c.skipped}
	if c.v == Fail {
		tc.Failure, tc.FailureType = "why", "kind"
	}
	return tc
}

type testSummary struct{}

func (testSummary) Title() string                        { return "whsim test" }
func (testSummary) AppendText(b []byte, _ *Style) []byte { return append(b, "done\n"...) }
func (testSummary) AppendJSON(b []byte) []byte           { return append(b, `{"summary":1}`+"\n"...) }

func TestFormats(t *testing.T) {
	t.Parallel()
	cases := []Case{testCase{"a", "one", Pass, time.Millisecond, ""}, testCase{"b", "two", Fail, 2 * time.Millisecond, ""},
		testCase{"a", "three", Warn, 31500 * time.Microsecond, ""}, testCase{"c", "four", Pass, 0, "no probe <&>"}}
	st := Style{Fail: Wrap{"<", ">"}}
	tests := map[string]string{
		Text: "one<!>\ntwo<!>\nthree<!>\nfour<!>\ndone\n",
		JSON: `{"name":"one"}` + "\n" + `{"name":"two"}` + "\n" + `{"name":"three"}` + "\n" + `{"name":"four"}` + "\n" + `{"summary":1}` + "\n",
		// A skipped case is <skipped>, counted in skipped: never a pass.
		JUnit: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="whsim test" tests="4" failures="1" errors="0" time="0.035">
  <testsuite name="a" tests="2" failures="0" errors="0" skipped="0" time="0.033">
    <testcase name="one" classname="t" time="0.001">
      <system-out>said</system-out>
    </testcase>
    <testcase name="three" classname="t" time="0.032">
      <system-out>said</system-out>
    </testcase>
  </testsuite>
  <testsuite name="b" tests="1" failures="1" errors="0" skipped="0" time="0.002">
    <testcase name="two" classname="t" time="0.002">
      <failure message="why" type="kind">said</failure>
    </testcase>
  </testsuite>
  <testsuite name="c" tests="1" failures="0" errors="0" skipped="1" time="0.000">
    <testcase name="four" classname="t" time="0.000">
      <skipped message="no probe &lt;&amp;&gt;"></skipped>
      <system-out>said</system-out>
    </testcase>
  </testsuite>
</testsuites>
`,
	}
	for format, want := range tests {
		var out bytes.Buffer
		rep, err := New(format, &out, st, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if err := rep.Case(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := rep.Finish(testSummary{}); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", format, out.String(), want)
		}
	}
	if _, err := New("xml", &bytes.Buffer{}, st, false); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("xml: %v", err)
	}
}

// Cases from many goroutines come out whole, one line each; Abort flushes
// them without a summary.
func TestConcurrentCasesAndAbort(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	rep, _ := New(JSON, &out, Style{}, false)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_ = rep.Case(testCase{name: "x", v: Pass})
			}
		})
	}
	wg.Wait()
	if err := rep.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), `{"name":"x"}`+"\n"); got != 800 || out.Len() != 800*13 {
		t.Errorf("%d whole lines in %d bytes", got, out.Len())
	}
}

// A run that ends before judging anything still leaves a JUnit report
// that parses: one test case in error saying why.
func TestWriteJUnitError(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnitError(&b, "whsim check", "whsim.check", "cannot reach http://127.0.0.1:9/: connection refused <&>\x1b"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Errors int `xml:"errors,attr"`
		Suite  struct {
			Case struct {
				Error struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 1 || doc.Errors != 1 || !strings.HasPrefix(doc.Suite.Case.Error.Message, "cannot reach http://127.0.0.1:9/: connection refused <&>") ||
		strings.Contains(doc.Suite.Case.Error.Message, "\x1b") {
		t.Errorf("report %+v\n%s", doc, b.String())
	}
}

// writes is a writer that hands each write to the test as it happens.
type writes chan string

func (w writes) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// A case reported to a pipe reaches its reader without the run writing
// more or ending: a slow send piped to jq shows each delivery within
// FlushAfter, not when a megabyte has gathered.
func TestStreamFlushesACaseThatWaits(t *testing.T) {
	t.Parallel()
	for _, format := range []string{Text, JSON} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			w := make(writes, 4)
			rep, err := New(format, w, Style{}, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"first", "second"} {
				if err := rep.Case(testCase{name: name, v: Pass}); err != nil {
					t.Fatal(err)
				}
				// Each case in turn is written by the timer alone: the
				// second finds the buffer empty again and sets it anew.
				got := next(t, w)
				if !strings.Contains(got, name) {
					t.Fatalf("wrote %q, want the case %q", got, name)
				}
			}
			if err := rep.Finish(testSummary{}); err != nil {
				t.Fatal(err)
			}
			if got := next(t, w); !strings.Contains(got, "done") && !strings.Contains(got, "summary") {
				t.Errorf("Finish wrote %q, want the summary", got)
			}
		})
	}
}

// next is the next write; a minute without one is the flush not
// happening at all, not a slow machine.
func next(t *testing.T, w writes) string {
	t.Helper()
	select {
	case got := <-w:
		return got
	case <-time.After(time.Minute):
		t.Fatal("nothing written in a minute")
		return ""
	}
}

type quietCase struct{ testCase }

func (quietCase) AppendText(b []byte, _ *Style) []byte { return b } // a pass, said in the summary

type separatedSummary struct{ testSummary }

func (separatedSummary) AppendText(b []byte, _ *Style) []byte { return append(b, "\ntable\n"...) }

// A text summary's leading blank line parts it from the case lines above
// it; with none above (every check passed), stdout does not start blank.
func TestSummarySeparatorOnlyAfterCaseLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cases []Case
		want  string
	}{
		{"no case line", []Case{quietCase{}, quietCase{}}, "table\n"},
		{"a case line", []Case{quietCase{}, testCase{name: "two", v: Fail}}, "two!\n\ntable\n"},
		{"no case", nil, "table\n"},
	} {
		var out bytes.Buffer
		rep, err := New(Text, &out, Style{}, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tc.cases {
			if err := rep.Case(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := rep.Finish(separatedSummary{}); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, out.String(), tc.want)
		}
	}
}

// endedCase is a case that says when it ended (TestCase.End), as a
// delivery of a concurrent run does.
type endedCase struct {
	testCase
	end time.Time
}

func (c endedCase) JUnit() TestCase {
	tc := c.testCase.JUnit()
	tc.End = c.end
	return tc
}

// Cases that say when they ended may have run at once: a suite's time is
// the span from its first case's start to its last one's end, and the
// report's over all its cases, as JUnit readers show a suite's wall time.
// It was the sum: 16 deliveries of 1s at once, a run of 1s, said 16s.
// Cases that do not say when (check's, run one after another) add up.
func TestJUnitTimeOfCasesAtOnce(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out bytes.Buffer
	rep, err := New(JUnit, &out, Style{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Case{
		// suite a: four of 1s at once, from t0 to t0+1.5s
		endedCase{testCase{"a", "1", Pass, time.Second, ""}, t0.Add(time.Second)},
		endedCase{testCase{"a", "2", Pass, time.Second, ""}, t0.Add(1100 * time.Millisecond)},
		endedCase{testCase{"a", "3", Pass, time.Second, ""}, t0.Add(1500 * time.Millisecond)},
		endedCase{testCase{"a", "4", Fail, time.Second, ""}, t0.Add(1200 * time.Millisecond)},
		// suite b: one of them, beside a, from t0+0.5s to t0+2s
		endedCase{testCase{"b", "5", Pass, 1500 * time.Millisecond, ""}, t0.Add(2 * time.Second)},
		// suite c: untimed cases add up (a threshold, check's cases)
		testCase{"c", "6", Pass, 250 * time.Millisecond, ""},
		testCase{"c", "7", Pass, 250 * time.Millisecond, ""},
	} {
		if err := rep.Case(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := rep.Finish(testSummary{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Time   string `xml:"time,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Time  string `xml:"time,attr"`
			Cases []struct {
				Time string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1.500", "b": "1.500", "c": "0.500"}
	for _, s := range doc.Suites {
		if s.Time != want[s.Name] {
			t.Errorf("suite %s: time %s, want %s", s.Name, s.Time, want[s.Name])
		}
	}
	if len(doc.Suites) != 3 || doc.Suites[0].Cases[0].Time != "1.000" {
		t.Errorf("suites %+v", doc.Suites)
	}
	// t0 to t0+2s, then c's 0.5s
	if doc.Time != "2.500" {
		t.Errorf("report time %s, want 2.500", doc.Time)
	}
}

// errorCase is a run-level error as check and send add one to their
// report (the receiver unreachable, a threshold that cannot be judged).
type errorCase struct{ testCase }

func (c errorCase) JUnit() TestCase {
	tc := c.testCase.JUnit()
	tc.Error = "the receiver cannot be reached"
	return tc
}

// An errored case counts in its suite's errors and in the root's: a
// reader that reads only <testsuites> (a CI badge, a merged report's
// total) must see the error, not "errors=0" over a suite that has one.
// No test summed the root's errors: dropping the sum passed.
func TestJUnitRootCountsErrors(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	rep, err := New(JUnit, &out, Style{}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Case{testCase{"a", "one", Pass, 0, ""}, errorCase{testCase{"whsim", "run", Fail, 0, ""}}} {
		if err := rep.Case(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := rep.Finish(testSummary{}); err != nil {
		t.Fatal(err)
	}
	var root struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	if root.Tests != 2 || root.Errors != 1 || root.Failures != 0 {
		t.Errorf("root: tests %d, errors %d, failures %d; want 2, 1 and 0 (the error is no failure):\n%s", root.Tests, root.Errors, root.Failures, out.String())
	}
	if len(root.Suites) != 2 || root.Suites[1].Name != "whsim" || root.Suites[1].Errors != 1 || root.Suites[1].Failures != 0 {
		t.Errorf("suites %+v: want whsim's with 1 error, no failure", root.Suites)
	}
}
