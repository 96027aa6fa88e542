package term

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

type fakeCase struct {
	suite, name string
	v           Verdict
}

func (c fakeCase) Verdict() Verdict { return c.v }
func (c fakeCase) AppendText(b []byte, _ *Style) []byte {
	return append(b, c.name+"\n"...)
}
func (c fakeCase) AppendJSON(b []byte, _ *Style) []byte {
	return append(b, `{"name":"`+c.name+`"}`+"\n"...)
}
func (c fakeCase) JUnit() TestCase {
	return TestCase{Suite: c.suite, Name: c.name, Failure: "why " + c.name, Detail: "detail " + c.name}
}

type fakeSummary struct{}

func (fakeSummary) AppendText(b []byte, _ *Style) []byte { return append(b, "all done\n"...) }
func (fakeSummary) AppendJSON(b []byte) []byte           { return append(b, `{"summary":{}}`+"\n"...) }
func (fakeSummary) Title() string                        { return "whsim test" }

func TestCollector(t *testing.T) {
	t.Parallel()
	col := &Collector{Keep: 3}
	var out bytes.Buffer
	text, _ := New(Text, &out, Style{}, false)
	rep := Tee(text, col, nil)
	var wg sync.WaitGroup
	for i, c := range []fakeCase{{"a", "a1", Pass}, {"a", "a2", Fail}, {"b", "b1", Warn}, {"b", "b2", Fail}, {"a", "a3", Fail}, {"c", "c1", Pass}} {
		if i < 2 { // the first suites in order, the rest at once
			rep.Case(c)
			continue
		}
		wg.Go(func() { rep.Case(c) })
	}
	wg.Wait()
	if err := rep.Finish(fakeSummary{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "all done") {
		t.Errorf("the tee did not reach the text reporter: %q", out.String())
	}
	var got []string
	for _, tl := range col.Tallies() {
		got = append(got, tl.Suite)
	}
	if strings.Join(got[:1], ",") != "a" || len(got) != 3 {
		t.Errorf("suites %v", got)
	}
	fails := 0
	for _, tl := range col.Tallies() {
		fails += tl.Fail
	}
	cases, dropped := col.Cases()
	if fails != 3 || len(cases) != 3 || dropped != 1 {
		t.Errorf("%d failures, %d cases kept, %d dropped", fails, len(cases), dropped)
	}
	if cases[0].Test.Name != "a2" || string(cases[0].JSON) != `{"name":"a2"}`+"\n" {
		t.Errorf("first kept case %+v", cases[0])
	}
	js, txt, title, done := col.Summary()
	if string(js) != `{"summary":{}}`+"\n" || txt != "all done\n" || title != "whsim test" || !done {
		t.Errorf("summary %q %q %q %v", js, txt, title, done)
	}
}

type failing struct{ Reporter }

func (failing) Case(Case) error      { return errors.New("case") }
func (failing) Finish(summary) error { return errors.New("finish") }

func TestTeeTellsAllAndReturnsErrors(t *testing.T) {
	t.Parallel()
	col := &Collector{}
	rep := Tee(failing{}, col)
	if err := rep.Case(fakeCase{"a", "x", Fail}); err == nil {
		t.Error("the error of one reporter is lost")
	}
	if err := rep.Finish(fakeSummary{}); err == nil {
		t.Error("the error of Finish is lost")
	}
	if c, _ := col.Cases(); len(c) != 1 {
		t.Errorf("the collector after a failing reporter got %d cases", len(c))
	}
	if Tee(col) != Reporter(col) {
		t.Error("a tee of one is not that one")
	}
}

// judgedCase is a case with a verdict and, when skip is set, the
// TestCase.Skipped mark: a case not made, or a warning not judged.
type judgedCase struct {
	v    Verdict
	skip string
}

func (c judgedCase) Verdict() Verdict                     { return c.v }
func (c judgedCase) AppendText(b []byte, _ *Style) []byte { return b }
func (c judgedCase) AppendJSON(b []byte, _ *Style) []byte { return append(b, "{}\n"...) }
func (c judgedCase) JUnit() TestCase                      { return TestCase{Suite: "s", Name: "n", Skipped: c.skip} }

// TestCollectorTallies: a suite's counts are the run's own: a case not
// made is skipped, never a pass; a warning its command could not judge
// (check's inconclusive) is a warning, as check's table says, although
// JUnit reads it as skipped.
func TestCollectorTallies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    judgedCase
		want tally
	}{
		{"pass", judgedCase{Pass, ""}, tally{Suite: "s", Pass: 1}},
		{"not made", judgedCase{Pass, "needs a probe"}, tally{Suite: "s", Skipped: 1}},
		{"warn", judgedCase{Warn, ""}, tally{Suite: "s", Warn: 1}},
		{"inconclusive warn", judgedCase{Warn, "the first delivery got 500"}, tally{Suite: "s", Warn: 1}},
		{"fail", judgedCase{Fail, ""}, tally{Suite: "s", Fail: 1}},
	} {
		col := &Collector{}
		_ = col.Case(tc.c)
		if got := col.Tallies(); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: tallies %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
