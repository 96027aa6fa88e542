package term

import (
	"errors"
	"sync"
)

// Tee reports every case and the summary to each of rs, in order; the
// first error is returned, after all were told. Nil reporters are left out.
func Tee(rs ...Reporter) Reporter {
	var t tee
	for _, r := range rs {
		if r != nil {
			t = append(t, r)
		}
	}
	if len(t) == 1 {
		return t[0]
	}
	return t
}

type tee []Reporter

func (t tee) Case(c Case) error {
	var errs []error
	for _, r := range t {
		errs = append(errs, r.Case(c))
	}
	return errors.Join(errs...)
}

func (t tee) Finish(s summary) error {
	var errs []error
	for _, r := range t {
		errs = append(errs, r.Finish(s))
	}
	return errors.Join(errs...)
}

func (t tee) Abort() error {
	var errs []error
	for _, r := range t {
		errs = append(errs, r.Abort())
	}
	return errors.Join(errs...)
}

// collected is one case as a Collector keeps it.
type collected struct {
	Verdict Verdict
	// JSON is the case's --output json lines, uncoloured.
	JSON []byte
	Test TestCase
}

// tally counts the verdicts of one suite.
type tally struct {
	Suite            string
	Pass, Warn, Fail int
	// Skipped counts the cases not made (TestCase.Skipped on a case
	// that did not fail or warn), which are not passes. A warning that
	// its case could not be judged (check's inconclusive, also
	// TestCase.Skipped, for JUnit) stays a warning, as the run's own
	// summary counts it.
	Skipped int
}

// Collector is a Reporter that keeps a run for the reports written after
// it (an HTML page, the CI job summary) rather than writing anything: per
// suite counts in the order suites first appear, the cases that did not
// pass (up to Keep; with KeepPass the passing ones too), and the summary's
// JSON and plain text. It is safe for concurrent use.
type Collector struct {
	// Keep bounds the cases kept (0: DefaultKeep), so a run of millions
	// holds no more than a report can show.
	Keep     int
	KeepPass bool

	mu      sync.Mutex
	cases   []collected
	dropped int
	tallies []*tally
	index   map[string]*tally
	sumJSON []byte
	sumText string
	title   string
	done    bool
}

// defaultKeep is how many cases a Collector keeps by default.
const defaultKeep = 1000

func (c *Collector) Case(x Case) error {
	tc := x.JUnit()
	v := x.Verdict()
	var js []byte
	keep := v != Pass || tc.Skipped != "" || c.KeepPass
	if keep {
		js = x.AppendJSON(nil, &Style{})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.index[tc.Suite]
	if t == nil {
		if c.index == nil {
			c.index = map[string]*tally{}
		}
		t = &tally{Suite: tc.Suite}
		c.index[tc.Suite] = t
		c.tallies = append(c.tallies, t)
	}
	switch {
	case v == Pass && tc.Skipped != "":
		t.Skipped++
	case v == Pass:
		t.Pass++
	case v == Warn:
		t.Warn++
	default:
		t.Fail++
	}
	limit := c.Keep
	if limit <= 0 {
		limit = defaultKeep
	}
	switch {
	case !keep:
	case len(c.cases) < limit:
		c.cases = append(c.cases, collected{Verdict: v, JSON: js, Test: tc})
	default:
		c.dropped++
	}
	return nil
}

func (c *Collector) Finish(s summary) error {
	js := s.AppendJSON(nil)
	text := string(s.AppendText(nil, &Style{}))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sumJSON, c.sumText, c.title, c.done = js, text, s.Title(), true
	return nil
}

func (c *Collector) Abort() error { return nil }

// Cases are the cases kept, in the order reported, and how many more were
// not kept for the bound.
func (c *Collector) Cases() ([]collected, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cases, c.dropped
}

// Tallies are the per suite counts, in the order the suites first came.
func (c *Collector) Tallies() []tally {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]tally, len(c.tallies))
	for i, t := range c.tallies {
		out[i] = *t
	}
	return out
}

// Summary is the run's summary as JSON and plain text, its title, and
// whether the run finished (an aborted run has none).
func (c *Collector) Summary() (js []byte, text, title string, finished bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sumJSON, c.sumText, c.title, c.done
}
