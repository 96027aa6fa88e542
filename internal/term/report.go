// Package term is whsim's format framework: the styles of a stream, check's
// progress line, and the text, JSON and JUnit outputs every report goes
// through. It imports no domain package (TestNoDomainDependencies): each
// command's renderers sit beside it in internal/cli (checkout, sendout,
// listenout, validateout, anonymizeout) and write through term.
// Domain packages return values and events; term and those renderers turn
// them into words, and only they write an ANSI code (term/tty alone asks
// whether a stream is a terminal).
//
// The reporter here writes the outcome of a run as text, JSON lines or
// JUnit XML: the one reporter behind send, replay, validate and check.
//
// A run reports cases and then a summary. A case is one thing a command
// tried and judged: a delivery (send, replay), a payload (validate), a
// check case (check). Each case type knows how it reads in each
// format; a Reporter knows how a stream of them is framed, buffered,
// locked and counted. Adding a command that reports is writing one Case
// and one Summary type; adding a format is one Reporter here.
//
//	rep, _ := term.New(term.JSON, os.Stdout, term.Style{})
//	for _, c := range cases {
//		rep.Case(c) // safe from many goroutines
//	}
//	rep.Finish(summary)
package term

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/termsafe"
)

// The formats a Reporter writes.
const (
	Text  = "text"
	JSON  = "json"
	JUnit = "junit"
)

// Verdict is what a case came to.
type Verdict uint8

const (
	Pass Verdict = iota // as expected
	Warn                // passed, with something to say
	Fail                // the thing checked failed: the run exits 1
)

// Case is one thing checked. A Reporter calls its methods while it formats
// the case, never after Case returns, so a case may be a view of data the
// caller reuses.
type Case interface {
	Verdict() Verdict
	// AppendText appends the case as text: zero or more lines.
	AppendText(b []byte, st *Style) []byte
	// AppendJSON appends the case as zero or more lines of JSON, each one
	// value: the command's stable --output json form.
	AppendJSON(b []byte, st *Style) []byte
	// JUnit is the case as a JUnit test case: its suite (a file, an
	// event), its name, and what failed or was said.
	JUnit() TestCase
}

// summary ends a run.
type summary interface {
	// AppendText appends the summary as text; a blank line it starts
	// with parts it from the case lines, and is left out when no case
	// wrote one.
	AppendText(b []byte, st *Style) []byte
	AppendJSON(b []byte) []byte
	// Title names the run in JUnit's testsuites element ("whsim validate").
	Title() string
}

// TestCase is a case as JUnit sees it.
type TestCase struct {
	Suite, Name, Class string
	// Failure is the one-line reason of a failed case; Detail everything
	// said about the case (the failure's text, else system-out).
	Failure, FailureType, Detail string
	// Skipped, when set, is why the case was not judged: a skipped test
	// case, never a passing one.
	Skipped string
	// Error, when set, is why the run ended without judging what the case
	// stands for (a replay that sent nothing): a case in error, neither
	// passed nor failed, as WriteJUnitError writes one.
	Error string
	// Time is what the case took, start to end, as JUnit readers show it
	// (0 where nothing is timed, as validate).
	Time time.Duration
	// End, when set, is when the case ended: such cases may have run at
	// once (send's deliveries), and their suite's time is the span from
	// the first one's start (End-Time) to the last one's end, not the sum
	// (16 calls of 1s at once, a run of 1s, said 16s). The times of cases
	// without it (run one after another, or untimed) add up.
	End time.Time
}

// Style is how a run's text looks: the colours of its stream (empty when
// colour is off) and whether to show each case in full.
type Style struct {
	OK, Warn, Fail, Dim, Bold, Key Wrap
	Verbose                        bool
}

// Wrap is a colour as the text before and after what it colours.
type Wrap struct{ Pre, Post string }

// Append appends s in the colour.
func (w Wrap) Append(b []byte, s string) []byte {
	b = append(b, w.Pre...)
	b = append(b, s...)
	return append(b, w.Post...)
}

// Reporter writes the cases and the summary of one run to one stream.
type Reporter interface {
	// Case reports a case. It is safe for concurrent use.
	Case(c Case) error
	// Finish writes the summary and flushes.
	Finish(s summary) error
	// Abort flushes what was reported of a run that ends on an error,
	// without a summary. A JUnit report, written at the end, is dropped.
	Abort() error
}

// New returns a reporter writing format to w. With flushEach (w is a
// terminal) every case is flushed as it is reported; otherwise a case
// waits in the buffer for at most FlushAfter.
func New(format string, w io.Writer, st Style, flushEach bool) (Reporter, error) {
	switch format {
	case Text, JSON:
		return &stream{w: bufio.NewWriterSize(w, streamBuffer), st: st, json: format == JSON, flushEach: flushEach}, nil
	case JUnit:
		return &junit{w: bufio.NewWriterSize(w, 64<<10)}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s, %s or %s)", format, Text, JSON, JUnit)
}

// FlushAfter bounds how long a case reported to a pipe or a file waits in
// the buffer: whoever reads the stream (jq, a CI log, tail -f) sees each
// case within it, however slow the run, while a fast run still writes in
// blocks of streamBuffer, a write every few thousand cases (a write a case
// was 4 % of send's CPU at 40,000 calls a second).
const FlushAfter = 200 * time.Millisecond

// streamBuffer is the size of a stream's buffer when it is not flushed
// at each case.
const streamBuffer = 1 << 20

// stream writes each case as it comes: text or JSON lines.
type stream struct {
	mu        sync.Mutex
	w         *bufio.Writer
	st        Style
	json      bool
	flushEach bool
	// flush, once made, flushes the buffer FlushAfter after a case found
	// it empty; pending says it is set, ended that the run is over and
	// nothing may be written after Finish or Abort.
	flush   *time.Timer
	pending bool
	ended   bool
	// said: a case wrote a line; the summary's leading blank line, which
	// parts it from them, is dropped when none did.
	said bool
	// bufs recycles the buffers cases are formatted in, outside the lock:
	// many workers should not queue behind formatting, nor allocate a
	// buffer per case.
	bufs sync.Pool
}

func (s *stream) Case(c Case) error {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b := (*bp)[:0]
	if s.json {
		// Values from outside (a captured event, a receiver's headers)
		// reach stdout: JSON goes out terminal-safe, whatever the case.
		b = termsafe.JSON(c.AppendJSON(b, &s.st))
	} else {
		b = c.AppendText(b, &s.st)
	}
	s.mu.Lock()
	s.said = s.said || len(b) > 0
	_, err := s.w.Write(b)
	switch {
	case err != nil:
	case s.flushEach:
		err = s.w.Flush()
	case !s.pending && !s.ended && s.w.Buffered() > 0:
		s.pending = true
		if s.flush == nil {
			s.flush = time.AfterFunc(FlushAfter, s.flushPending)
		} else {
			s.flush.Reset(FlushAfter)
		}
	}
	s.mu.Unlock()
	if cap(b) <= 64<<10 {
		*bp = b
		s.bufs.Put(bp)
	}
	return err
}

// flushPending writes out what waited FlushAfter. An error stays in the
// bufio.Writer, which returns it from the next write, Finish or Abort.
func (s *stream) flushPending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = false
	if !s.ended {
		_ = s.w.Flush()
	}
}

// end stops the timed flush: after Finish or Abort the command may close
// the stream.
func (s *stream) end() {
	s.ended = true
	if s.flush != nil {
		s.flush.Stop()
	}
}

func (s *stream) Finish(sum summary) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end()
	var b []byte
	if s.json {
		b = termsafe.JSON(sum.AppendJSON(nil))
	} else {
		b = sum.AppendText(nil, &s.st)
		if !s.said && len(b) > 0 && b[0] == '\n' {
			b = b[1:] // nothing above to part it from
		}
	}
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.w.Flush()
}

func (s *stream) Abort() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end()
	return s.w.Flush()
}

// NewJUnit returns a JUnit reporter writing to w. target, when set, is
// the receiver the run called (credentials masked: termsafe.URL): every
// suite's name carries it, so that the reports of two receivers merged
// into one file (junit-report-merger, a CI server's test view) stay two
// suites each.
func NewJUnit(w io.Writer, target string) Reporter {
	return &junit{w: bufio.NewWriterSize(w, 64<<10), target: termsafe.Text(target)}
}

// junit keeps the cases until the end, for the suites' counts: one test
// suite per case suite, in the order they first appear.
//
// The XML is valid against the two schemas CI servers check reports with
// (testdata/junit): Jenkins' junit-10.xsd wants errors on every suite,
// Maven Surefire's a time on every test case, skipped on every suite and
// a case's children in the order failure, skipped, error, system-out.
type junit struct {
	mu     sync.Mutex
	w      *bufio.Writer
	target string
	suites []*junitSuite
	index  map[string]*junitSuite
	// span is the report's time, over all its cases (junitSpan).
	span junitSpan
}

// junitSuites is the report's root: junit-10.xsd allows no skipped on
// it, the suites carry that.
type junitSuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Time     junitTime     `xml:"time,attr"`
	Suites   []*junitSuite `xml:"testsuite"`
}

// writeJUnit writes all as a JUnit report: the XML header, the elements
// indented, a final newline.
func writeJUnit(w io.Writer, all junitSuites) error {
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

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     junitTime   `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	// names counts each case name the suite was given (unique).
	names map[string]int
	// span is the time of its cases that say when they ended.
	span junitSpan
}

// junitSpan is a time made of cases that may have run at once: the span
// of those that say when they ended (TestCase.End) plus the sum of those
// that do not.
type junitSpan struct {
	first, last time.Time
	untimed     time.Duration
}

func (s *junitSpan) add(took time.Duration, end time.Time) {
	if end.IsZero() {
		s.untimed += took
		return
	}
	start := end.Add(-max(took, 0))
	if s.first.IsZero() || start.Before(s.first) {
		s.first = start
	}
	if end.After(s.last) {
		s.last = end
	}
}

func (s *junitSpan) time() junitTime { return junitTime(s.last.Sub(s.first) + s.untimed) }

// unique returns name, or when the suite already holds a case of that
// name, name with " #2", " #3"... after it: JUnit readers (Jenkins, GitHub's
// test reporters) key a case by its suite, class and name, and merge or
// overwrite two that share them, so a re-delivery of one requestId or a
// payload sent again would vanish from the report.
func (s *junitSuite) unique(name string) string {
	if s.names == nil {
		s.names = map[string]int{}
	}
	n := s.names[name]
	s.names[name] = n + 1
	if n == 0 {
		return name
	}
	for k := n + 1; ; k++ {
		alt := name + " #" + strconv.Itoa(k)
		if s.names[alt] == 0 {
			s.names[alt] = 1
			return alt
		}
	}
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      junitTime     `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	// Error is a run that ended before it judged anything (WriteJUnitError).
	Error     *junitFailure `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped marks a case not made: every JUnit reader counts it
// skipped, where a case with system-out alone reads as passed.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitTime is a duration as JUnit's time attribute: seconds with three
// decimals, the most Surefire's schema allows.
type junitTime time.Duration

func (t junitTime) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: strconv.FormatFloat(max(time.Duration(t), 0).Seconds(), 'f', 3, 64)}, nil
}

func (j *junit) Case(c Case) error {
	tc := c.JUnit()
	// XML keeps C1 and bidi controls raw and turns the rest into U+FFFD:
	// escaped here, the report reads the same in a file and on a terminal.
	tc.Suite = termsafe.Text(tc.Suite)
	jc := junitCase{Name: termsafe.Text(tc.Name), Classname: termsafe.Text(tc.Class), Time: junitTime(tc.Time)}
	detail := termsafe.Lines(tc.Detail)
	errored := tc.Error != ""
	failed := !errored && c.Verdict() == Fail
	skipped := !errored && !failed && tc.Skipped != ""
	switch {
	case errored:
		jc.Error = &junitFailure{Message: termsafe.Text(tc.Error), Type: "error", Text: detail}
	case failed:
		// Surefire's schema wants a failure's type.
		jc.Failure = &junitFailure{Message: termsafe.Text(tc.Failure), Type: cmp.Or(termsafe.Text(tc.FailureType), "failure"), Text: detail}
	case skipped:
		jc.Skipped = &junitSkipped{Message: termsafe.Text(tc.Skipped)}
		jc.SystemOut = detail
	default:
		jc.SystemOut = detail
	}
	name := tc.Suite
	if j.target != "" {
		name += " (" + j.target + ")"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.index[name]
	if s == nil {
		if j.index == nil {
			j.index = map[string]*junitSuite{}
		}
		s = &junitSuite{Name: name}
		j.index[name] = s
		j.suites = append(j.suites, s)
	}
	s.Tests++
	switch {
	case errored:
		s.Errors++
	case failed:
		s.Failures++
	case skipped:
		s.Skipped++
	}
	s.span.add(tc.Time, tc.End)
	s.Time = s.span.time()
	j.span.add(tc.Time, tc.End)
	jc.Name = s.unique(jc.Name)
	s.Cases = append(s.Cases, jc)
	return nil
}

func (j *junit) Abort() error { return nil }

func (j *junit) Finish(sum summary) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	all := junitSuites{Name: sum.Title(), Suites: j.suites, Time: j.span.time()}
	for _, s := range j.suites {
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
	}
	if err := writeJUnit(j.w, all); err != nil {
		return err
	}
	return j.w.Flush()
}

// Plural is one or many, as n says: "1 payload", "2 payloads".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
