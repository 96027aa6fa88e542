// Package sendout tells the delivery runs of whsim send and replay: the
// console (each delivery as it finishes, retries and warnings, the
// progress bar) and the summary with its thresholds, through term's text,
// JSON and JUnit outputs. It sits beside the commands, so that term, the
// format layer, imports no attempt, load or threshold.
package sendout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"

	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
)

// ConsoleOptions say where and how a delivery run is told.
type ConsoleOptions struct {
	// Title names the run in its summary ("whsim send").
	Title string
	// Format is the report's format (Text, JSON, JUnit).
	Format string
	// Out takes the report, styled OutStyle (its Verbose shows each
	// request and answer in full); Err the retry notices, warnings and
	// the progress bar, coloured ErrStyle.
	Out, Err           io.Writer
	OutStyle, ErrStyle term.Style
	// OutTTY and ErrTTY say whether Out and Err are terminals.
	OutTTY, ErrTTY bool
	// Each lists every delivery on a terminal too, not only the failures.
	Each bool
	// Thresholds are checked against the run's stats at the end and said
	// in its summary (send --threshold).
	Thresholds []threshold.Threshold
	// Observe, when set, is told of every finished delivery, from many
	// workers at once (send --report, the job summary).
	Observe func(*attempt.Result)
	// Target is the receiver, credentials masked (termsafe.URL): the JUnit
	// suites' names carry it.
	Target string
	// JUnit, when set, takes a JUnit report of every delivery beside the
	// report on Out (--junit FILE).
	JUnit io.Writer
	// Unjudged, when set, is asked once the run ended (not interrupted)
	// what kept it from testing all it was given (replay: files that sent
	// nothing, a capture that could not be read): the JUnit reports carry
	// it as a case in error, so that CI does not read a run that tested
	// nothing as a suite where nothing failed.
	Unjudged func() error
}

// Console tells a delivery run as it goes: each delivery through the run's
// report as it finishes (from many workers at once), retries and warnings
// on stderr, and a progress bar when stderr is a terminal.
type Console struct {
	rep   term.Reporter
	junit term.Reporter // nil without ConsoleOptions.JUnit
	// repJUnit says rep is a JUnit report (--output junit).
	repJUnit bool
	title    string
	// quiet reports only failures: text on a terminal, without Each or
	// Verbose, where a line per delivery would scroll past by the thousand.
	quiet  bool
	outTTY bool
	errTTY bool
	// Note is said under the summary's counts (send's --count per event).
	Note string
	// thresholds are checked at the end; checked is what came of them.
	thresholds []threshold.Threshold
	checked    []threshold.Result
	observe    func(*attempt.Result)
	unjudged   func() error
	// done counts finished deliveries for the progress bar (load.RunOptions.Done).
	done atomic.Int64
	// failures counts failed deliveries for the progress bar; firstErr is
	// the first transport error, for the one line of a receiver that
	// cannot be reached.
	failures atomic.Int64
	firstErr atomic.Pointer[attempt.Attempt]
	// silent tallies what passed on the calls that timed out.
	silent silences
	// stopRun ends the run's deliveries early, its cause the stdout
	// write that failed (Report).
	stopRun context.CancelCauseFunc

	mu      sync.Mutex // err
	err     io.Writer
	warn    term.Wrap
	stopBar chan struct{}
	barDone chan struct{}
}

// NewConsole returns the console of one run; an unknown Format is an error.
func NewConsole(o ConsoleOptions) (*Console, error) {
	var rep term.Reporter
	if o.Format == term.JUnit {
		rep = term.NewJUnit(o.Out, o.Target)
	} else {
		var err error
		if rep, err = term.New(o.Format, o.Out, o.OutStyle, o.OutTTY); err != nil {
			return nil, err
		}
	}
	quiet := o.Format == term.Text && o.OutTTY && !o.Each && !o.OutStyle.Verbose
	c := &Console{rep: rep, title: o.Title, quiet: quiet, outTTY: o.OutTTY, errTTY: o.ErrTTY, err: o.Err, warn: o.ErrStyle.Warn,
		thresholds: o.Thresholds, observe: o.Observe, unjudged: o.Unjudged, repJUnit: o.Format == term.JUnit}
	if o.JUnit != nil {
		c.junit = term.NewJUnit(o.JUnit, o.Target)
	}
	return c, nil
}

// NothingSent is why a run that ended by itself tested no receiver: its
// --duration was over before the first call started. nil when a call was
// sent, or the run had no --duration. Such a run is no pass: its JUnit
// holds it as a case in error, and the command exits 2.
func NothingSent(st *load.Stats, o load.RunOptions) error {
	if st.Sent == 0 && o.Duration > 0 {
		return fmt.Errorf("nothing was sent: --duration %s ended the run before its first call started", o.Duration)
	}
	return nil
}

// Run makes the deliveries next feeds to d, telling each, and ends with
// the summary. total is how many deliveries the run makes, 0 when unknown.
func (c *Console) Run(ctx context.Context, d *attempt.Deliverer, next func() []*attempt.Request, o load.RunOptions, total int) (*load.Stats, error) {
	if total == 1 {
		c.quiet = false // one delivery is one line, whatever came of it, and no bar
	}
	if c.errTTY && total != 1 {
		c.startBar(total, o.Duration)
	}
	o.Done = &c.done
	// A report that cannot be written stops the run, as a data command
	// whose stdout fails stops (curl, gh): send > /dev/full went on for
	// its whole --duration, though nothing it found could be said.
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	c.stopRun = stopRun
	st := load.Run(runCtx, d, next, o, c.Report)
	c.stop()
	var outErr error
	if ctx.Err() == nil && runCtx.Err() != nil {
		outErr = context.Cause(runCtx)
	}
	sum := SendSummary{Stats: st, Name: c.title, Note: c.Note}
	// A JUnit report holds a run Ctrl-C ended as a case: the deliveries
	// it never started are no cases, and those that ran may all have
	// passed (exit 130).
	// And a run that did not test all it was given is said so in the
	// summary, which alone would read as a pass.
	var cases []term.Case
	if ctx.Err() != nil {
		cases = append(cases, interruptedCase{st})
	} else if outErr != nil {
		msg := fmt.Sprintf("stdout could not be written (%v): sending stopped there, %d sent (%s)", outErr, st.Sent, interruptedWords(st))
		if w := st.NotStartedWords(); w != "" {
			msg += ", " + w
		}
		err := errors.New(msg)
		cases = append(cases, unjudgedCase{err})
		sum.Incomplete = err.Error()
	} else if err := NothingSent(st, o); err != nil {
		cases = append(cases, unjudgedCase{err})
		sum.Incomplete = err.Error()
	} else if c.unjudged != nil {
		if err := c.unjudged(); err != nil {
			cases = append(cases, unjudgedCase{err})
			sum.Incomplete = err.Error()
		}
	}
	sum.Thresholds = c.judge(ctx.Err() != nil, sum.Incomplete, st, total)
	// A JUnit report holds the thresholds as cases, first: a run that a
	// threshold failed (exit 1) must not read as all passed in a CI's
	// test view.
	judged := make([]term.Case, 0, len(c.checked)+len(cases))
	for i := range c.checked {
		judged = append(judged, (*thresholdCase)(&c.checked[i]))
	}
	cases = append(judged, cases...)
	if ctx.Err() == nil && outErr == nil && sum.Incomplete == "" && st.NotStartedWords() != "" {
		cases = append(cases, notStartedCase{st})
	}
	if st.Unasked > 0 {
		cases = append(cases, unaskedCase{st})
	}
	for _, tc := range cases {
		if c.junit != nil {
			_ = c.junit.Case(tc)
		}
		if c.repJUnit {
			_ = c.rep.Case(tc)
		}
	}
	if c.junit != nil {
		if err := c.junit.Finish(sum); err != nil {
			return st, err
		}
	}
	if err := c.rep.Finish(sum); err != nil || outErr == nil {
		return st, err
	}
	return st, outErr
}

// judge checks the run's thresholds (Thresholds) and returns what came
// of them. A threshold is judged on a run that finished: on one that did
// not (interrupted, or incomplete, which says why), the calls answered
// so far held a p99 or a failed share the run would not have, and "ok"
// read as a pass of what was never measured.
func (c *Console) judge(interrupted bool, incomplete string, st *load.Stats, total int) []threshold.Result {
	c.checked = threshold.CheckAll(c.thresholds, st.Measured())
	switch {
	case interrupted:
		c.checked = threshold.NotJudged(c.checked, "interrupted after "+callsOf(st.Sent, total))
	case incomplete != "":
		c.checked = threshold.NotJudged(c.checked, "the run did not complete: "+incomplete)
	}
	return c.checked
}

// callsOf is "16 of 200 calls", or "16 calls" when the run's number of
// calls was not known (a --duration, a stream).
func callsOf(sent, total int) string {
	if total > 0 {
		return fmt.Sprintf("%d of %d %s", sent, total, term.Plural(total, "call", "calls"))
	}
	return fmt.Sprintf("%d %s", sent, term.Plural(sent, "call", "calls"))
}

// Thresholds is what came of the run's thresholds, once load.Run returned.
func (c *Console) Thresholds() []threshold.Result { return c.checked }

// Report tells of one finished delivery; many workers call it at once.
func (c *Console) Report(res *attempt.Result) {
	if c.observe != nil {
		c.observe(res)
	}
	if c.junit != nil {
		// Every delivery, whatever the terminal shows: the counts are the
		// summary's.
		_ = c.junit.Case((*delivery)(res))
	}
	switch {
	case c.quiet && res.OK:
		// Counted by the bar and the summary, not listed.
	case c.outTTY && c.stopBar != nil:
		// Stdout and the bar share the terminal: the line goes above it.
		c.mu.Lock()
		c.clearBar()
		c.told(c.rep.Case((*delivery)(res)))
		c.mu.Unlock()
	default:
		c.told(c.rep.Case((*delivery)(res)))
	}
	if !res.OK {
		c.failures.Add(1)
		last := res.Last()
		if last.Status == 0 && c.firstErr.Load() == nil {
			c.firstErr.CompareAndSwap(nil, &last)
		}
		if last.Status == 0 {
			c.silent.note(last)
		}
	}
}

// told takes what came of writing a delivery's report: one that failed
// (stdout on a full disk, its reader gone) stops the run.
func (c *Console) told(err error) {
	if err != nil && c.stopRun != nil {
		c.stopRun(err)
	}
}

// Unreachable is the one line that says a run failed because its receiver
// could not be reached at all (every delivery failed with one error kind),
// rather than a page of failures; "" for any other run.
func (c *Console) Unreachable(st *load.Stats, target *url.URL) string {
	kinds := st.ErrorKinds()
	if st.Failed == 0 || len(kinds) != 1 || st.ByError[kinds[0]] != st.Sent {
		return ""
	}
	why := kinds[0]
	first := c.firstErr.Load()
	if first == nil || first.Kind != kinds[0] {
		return "" // answers, every one cut off: the receiver was reached
	}
	if first != nil && (first.Kind == attempt.KindTLS || first.Kind == attempt.KindLocal) {
		why = attempt.FailureText(*first)
	}
	switch {
	case kinds[0] == attempt.KindLocal:
		return fmt.Sprintf("could not send to %s: %s (a limit of this machine, not the receiver's failure)", termsafe.URL(target), why)
	case kinds[0] == attempt.KindOther, kinds[0] == attempt.KindStreamReset, kinds[0] == attempt.KindGoAway,
		kinds[0] == attempt.KindRedirect:
		// Reached, most often, but answered with bytes that are no HTTP
		// answer, or ended otherwise (an HTTP/2 stream reset, GOAWAY):
		// "cannot reach" would send the user to the network, and the
		// kind alone ("error") says nothing.
		why = strings.TrimPrefix(attempt.FailureText(*first), attempt.KindOther+": ")
		return fmt.Sprintf("every call to %s failed: %s", termsafe.URL(target), termsafe.Text(why))
	case kinds[0] == attempt.KindMalformed:
		// Reached, and answered with no valid HTTP answer: the receiver's
		// fault, which the reader's words say.
		why = strings.TrimPrefix(attempt.ShortError(*first), attempt.KindMalformed+": ")
		return fmt.Sprintf("every call to %s got a malformed answer (not valid HTTP): %s", termsafe.URL(target), termsafe.Text(why))
	case kinds[0] == attempt.KindTimeout && c.silent.words() != "":
		// Reached: what went out of each call and what came, in words
		// without the counts that differ from call to call (their range).
		return fmt.Sprintf("no answer from %s: every call timed out: %s", termsafe.URL(target), c.silent.words())
	case kinds[0] == attempt.KindTimeout && attempt.ShortError(*first) != attempt.KindTimeout:
		// Reached, and the call waited for what the receiver did not
		// give (an HTTP/2 stream): why it timed out, not "slower".
		return fmt.Sprintf("no answer from %s: every call timed out: %s", termsafe.URL(target), termsafe.Text(strings.TrimPrefix(attempt.ShortError(*first), attempt.KindTimeout+": ")))
	case kinds[0] == attempt.KindTimeout:
		// The kind is the same whether the connection or the answer took
		// too long: "cannot reach" would be false of a slow receiver.
		return fmt.Sprintf("no answer from %s: every call timed out (a receiver slower than --timeout, or one that cannot be reached)", termsafe.URL(target))
	case kinds[0] == attempt.KindClosed, kinds[0] == attempt.KindReset:
		// A connection taken, the call written, then ended unanswered:
		// reached, and "cannot reach" would send the user to the network.
		return fmt.Sprintf("no answer from %s: every call's connection was ended before an answer came (%s)", termsafe.URL(target), why)
	}
	return fmt.Sprintf("cannot reach %s: %s", termsafe.URL(target), why)
}

// Retry tells, on stderr, of an attempt that will be tried again: a
// attempt.Deliverer's OnRetry.
func (c *Console) Retry(req *attempt.Request, n int, a attempt.Attempt) {
	what := attemptText(a)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearBar()
	fmt.Fprintf(c.err, "%s %s %s attempt %d: %s, retrying in %s\n", c.warn.Pre+"retry"+c.warn.Post,
		termsafe.Text(req.Event), termsafe.Text(req.ShownID()), n, termsafe.Text(what), a.Wait.Round(time.Millisecond))
}

// Warn tells a warning on stderr, terminal-safe.
func (c *Console) Warn(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.err, "%s %s\n", c.warn.Pre+"warning:"+c.warn.Post, termsafe.Text(fmt.Sprintf(format, args...)))
}

func (c *Console) clearBar() {
	if c.stopBar != nil {
		fmt.Fprint(c.err, "\r\033[K")
	}
}

// startBar draws a progress bar on stderr (a terminal) until stopped.
func (c *Console) startBar(total int, duration time.Duration) {
	c.stopBar, c.barDone = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(c.barDone)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-c.stopBar:
				c.mu.Lock()
				fmt.Fprint(c.err, "\r\033[K")
				c.mu.Unlock()
				return
			case <-t.C:
			}
			line := progressLine(c.done.Load(), c.failures.Load(), int64(total), time.Since(start), duration)
			c.mu.Lock()
			fmt.Fprint(c.err, "\r\033[K"+line)
			c.mu.Unlock()
		}
	}()
}

func (c *Console) stop() {
	if c.stopBar != nil {
		close(c.stopBar)
		<-c.barDone
		c.stopBar = nil
	}
}

// progressLine is the bar: done of total (or of duration's time), the
// rate, the time left and the failures so far, el into the run. Without a
// total or a duration there is no end to measure against: the count and
// the rate.
func progressLine(done, failed, total int64, el, duration time.Duration) string {
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	var b strings.Builder
	frac, left := -1.0, time.Duration(-1)
	switch {
	case total > 0:
		frac = float64(done) / float64(total)
		if rate > 0 {
			left = time.Duration(float64(total-done) / rate * float64(time.Second))
		}
	case duration > 0:
		frac, left = el.Seconds()/duration.Seconds(), duration-el
	}
	if frac >= 0 {
		const width = 28
		frac = min(frac, 1)
		fill := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] ")
	}
	if total > 0 {
		fmt.Fprintf(&b, "%*d/%d %3.0f%%", len(strconv.FormatInt(total, 10)), done, total, frac*100)
	} else {
		fmt.Fprintf(&b, "%d sent", done)
		if frac >= 0 {
			fmt.Fprintf(&b, "  %.0f%%", frac*100)
		}
	}
	fmt.Fprintf(&b, "  %.0f/s", rate)
	switch {
	case frac >= 0 && left >= 0:
		fmt.Fprintf(&b, "  ETA %s", max(left, 0).Round(time.Second))
	case frac >= 0:
		b.WriteString("  ETA --")
	}
	if failed > 0 {
		fmt.Fprintf(&b, "  %d failed", failed)
	}
	return b.String()
}
