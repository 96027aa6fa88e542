// Package threshold parses and checks the pass/fail conditions a load run
// ends on (send --threshold 'p99<500ms', 'failed<1%', 'rps>=200'), in the
// manner of k6's thresholds: a metric of the run's summary, a comparison
// and a value, checked once when the run is over.
package threshold

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/decimal"
)

// kind is what a metric measures, which says what its values are written
// as.
type kind uint8

const (
	// count is a number of deliveries; a value may also be a share of
	// those sent (failed<1%).
	count kind = iota
	// rate is deliveries per second (rps>=200, or 200/s).
	rate
	// latency is a duration (p99<500ms); its measured value is in
	// milliseconds.
	latency
)

// metric is one metric a threshold may name.
type metric struct {
	Name    string
	Kind    kind
	Meaning string
}

// Sent is the metric a count share is a share of.
const Sent = "sent"

var metrics = []metric{
	{Sent, count, "deliveries made, duplicates included"},
	{"succeeded", count, "deliveries that got an expected status"},
	{"failed", count, "deliveries that did not (a count, or a share of sent: failed<1%)"},
	{"interrupted", count, "deliveries cut short by Ctrl-C"},
	{"duplicates", count, "deliberate re-deliveries sent"},
	{"retries", count, "attempts beyond the first"},
	{"late", count, "open model: calls that started late at --max-concurrency"},
	{"rps", rate, "answered deliveries per second of wall time"},
	{"p50", latency, "median latency"},
	{"p90", latency, "90th percentile latency"},
	{"p99", latency, "99th percentile latency"},
	{"p99.9", latency, "99.9th percentile latency"},
	{"max", latency, "largest latency"},
}

// Names lists the metric names.
func Names() []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = m.Name
	}
	return out
}

func lookup(name string) (metric, bool) {
	for _, m := range metrics {
		if m.Name == name {
			return m, true
		}
	}
	return metric{}, false
}

// The comparisons, longest first so that "<=" is not read as "<".
var ops = []string{"<=", ">=", "==", "!=", "<", ">"}

// Threshold is one parsed condition.
type Threshold struct {
	// Text is the threshold as the user wrote it, spaces removed.
	Text   string
	Metric metric
	Op     string
	// Value is in the metric's unit: a count, per second, milliseconds,
	// or with Percent a share of sent in percent.
	Value   float64
	Percent bool
}

// unknownMetricError is a threshold naming no metric of the summary.
type unknownMetricError struct{ Text, Name string }

func (e *unknownMetricError) Error() string {
	return fmt.Sprintf("threshold %q: unknown metric %q (metrics: %s)", e.Text, e.Name, strings.Join(Names(), ", "))
}

// Parse reads one threshold: metric, comparison, value, spaces allowed
// around each.
func Parse(s string) (Threshold, error) {
	text := strings.Join(strings.Fields(s), "")
	t := Threshold{Text: text}
	at, op := -1, ""
	for _, o := range ops {
		if i := strings.Index(text, o); i >= 0 && (at < 0 || i < at || i == at && len(o) > len(op)) {
			at, op = i, o
		}
	}
	if at < 0 {
		return t, fmt.Errorf("threshold %q: want <metric><op><value> with op one of %s, like p99<500ms, failed<1%% or rps>=200",
			s, strings.Join(ops, " "))
	}
	name, value := text[:at], text[at+len(op):]
	if name == "" {
		return t, fmt.Errorf("threshold %q: no metric before %s (metrics: %s)", s, op, strings.Join(Names(), ", "))
	}
	m, ok := lookup(name)
	if !ok {
		return t, &unknownMetricError{Text: s, Name: name}
	}
	t.Metric, t.Op = m, op
	if value == "" {
		return t, fmt.Errorf("threshold %q: no value after %s", s, op)
	}
	var err error
	switch m.Kind {
	case latency:
		var d time.Duration
		d, err = time.ParseDuration(strings.ReplaceAll(value, "µs", "us"))
		switch {
		case err != nil:
			err = fmt.Errorf("threshold %q: %s is a latency: want a duration like 500ms or 1.5s, not %q", s, name, value)
		case d < 0:
			err = fmt.Errorf("threshold %q: a latency is not negative", s)
		}
		t.Value = float64(d) / float64(time.Millisecond)
	case rate:
		t.Value, err = number(strings.TrimSuffix(value, "/s"))
		if err != nil {
			err = fmt.Errorf("threshold %q: %s is deliveries per second: want a number like 200, not %q", s, name, value)
		}
	case count:
		num, pct := strings.CutSuffix(value, "%")
		t.Value, err = number(num)
		t.Percent = pct
		switch {
		case err != nil:
			err = fmt.Errorf("threshold %q: %s is a count: want a number like 10 or a share of sent like 1%%, not %q", s, name, value)
		case pct && name == Sent:
			err = fmt.Errorf("threshold %q: sent is what a share is of: give a count", s)
		case pct && t.Value > 100:
			err = fmt.Errorf("threshold %q: a share is at most 100%%", s)
		case !pct && t.Value != math.Trunc(t.Value) && t.Value < 1:
			// A fraction is a share written as k6 writes a rate
			// (rate<0.5); read as a count it would be met only by
			// fewer deliveries than the user meant.
			err = fmt.Errorf("threshold %q: %s is a count of deliveries, a whole number: for a share of sent write %s%%",
				s, name, strconv.FormatFloat(t.Value*100, 'f', -1, 64))
		case !pct && t.Value != math.Trunc(t.Value):
			err = fmt.Errorf("threshold %q: %s is a count of deliveries, a whole number, not %s", s, name, value)
		}
	}
	return t, err
}

func number(s string) (float64, error) {
	v, err := decimal.Parse(s)
	switch {
	case err != nil:
		return 0, err
	case v < 0:
		return 0, errors.New("not a number of 0 or more")
	}
	return v, nil
}

// Measured holds a run's value of each metric, in the metric's unit
// (latencies in milliseconds).
type Measured map[string]float64

// Result is a threshold checked against a run.
type Result struct {
	Threshold
	// Got is the measured value compared: in percent for a share.
	Got  float64
	Pass bool
	// Unmeasured: the run has no value of the metric (a latency or a rate
	// when no call was answered), so the threshold does not hold: a
	// skipped measure is no pass.
	Unmeasured bool
	// NotJudged, when set, says why the threshold was not judged: the run
	// did not finish ("interrupted after 16 of 200 calls"), and a value
	// measured on the calls answered so far says nothing of the run it
	// was set for. Such a result does not pass (skipped is no pass), nor
	// did it fail; Got is the value so far.
	NotJudged string
}

// Check compares the run's value of t's metric with t's value. A latency
// or rate m lacks was not measured: the result fails, Unmeasured. A count
// m lacks is 0.
func (t Threshold) Check(m Measured) Result {
	got, ok := m[t.Metric.Name]
	if !ok && t.Metric.Kind != count {
		return Result{Threshold: t, Unmeasured: true}
	}
	if t.Percent {
		got = 0
		if sent := m[Sent]; sent > 0 {
			got = m[t.Metric.Name] / sent * 100
		}
	}
	return Result{Threshold: t, Got: got, Pass: t.holds(got)}
}

// holds says whether got meets the threshold.
func (t Threshold) holds(got float64) bool {
	switch t.Op {
	case "<":
		return got < t.Value
	case "<=":
		return got <= t.Value
	case ">":
		return got > t.Value
	case ">=":
		return got >= t.Value
	case "==":
		return got == t.Value
	case "!=":
		return got != t.Value
	}
	return false
}

// CheckAll checks each threshold against m.
func CheckAll(ts []Threshold, m Measured) []Result {
	out := make([]Result, len(ts))
	for i, t := range ts {
		out[i] = t.Check(m)
	}
	return out
}

// NotJudged is rs with every result marked not judged, why saying why
// (Result.NotJudged): the run they were checked against did not finish.
func NotJudged(rs []Result, why string) []Result {
	out := make([]Result, len(rs))
	for i, r := range rs {
		r.Pass, r.NotJudged = false, why
		out[i] = r
	}
	return out
}

// Failed lists the results that did not pass, those not judged too.
func Failed(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

// GotText is the measured value as the summary writes it: 812.3ms, 3.74s,
// 0.25%, 201.3/s, 12.
func (r Result) GotText() string {
	switch {
	case r.Unmeasured:
		return "not measured (no call was answered)"
	case r.NotJudged != "":
		judged := r
		judged.NotJudged, judged.Pass = "", r.holds(r.Got)
		return judged.GotText() + " so far"
	case r.Percent:
		return strconv.FormatFloat(math.Round(r.Got*100)/100, 'f', -1, 64) + "%"
	case r.Metric.Kind == latency:
		return r.latencyText()
	case r.Metric.Kind == rate:
		return strconv.FormatFloat(math.Round(r.Got*10)/10, 'f', -1, 64) + "/s"
	}
	return strconv.FormatFloat(r.Got, 'f', -1, 64)
}

// latencyText writes a latency (in milliseconds) as the rest of the
// summary does: 3.74s, 812.3ms, 450µs. Where that rounding would read as
// the other verdict (p99<=3.74s failed by 3.7449s), digits are added
// until it does not, down to the microsecond measured.
func (r Result) latencyText() string {
	unit, scale, digits := "ms", 1.0, 1
	switch {
	case r.Got >= 1000:
		unit, scale, digits = "s", 1000, 2
	case r.Got < 1:
		unit, scale, digits = "µs", 0.001, 0
	}
	last := 3 + int(math.Log10(scale)) // the digits of a microsecond
	for {
		p := math.Pow(10, float64(digits))
		shown := math.Round(r.Got/scale*p) / p
		if r.Threshold.holds(shown*scale) == r.Pass || digits >= last {
			return strconv.FormatFloat(shown, 'f', digits, 64) + unit
		}
		digits++
	}
}

// String is "p99<500ms (p99 812.3ms)", as the failure message names it;
// "p99<500ms not judged: interrupted after 16 of 200 calls (p99 812.3ms
// so far)" for one not judged.
func (r Result) String() string {
	if r.NotJudged != "" {
		return fmt.Sprintf("%s not judged: %s (%s %s)", r.Text, r.NotJudged, r.Metric.Name, r.GotText())
	}
	return fmt.Sprintf("%s (%s %s)", r.Text, r.Metric.Name, r.GotText())
}

// JSON is a result's stable form in the summary of --output json.
type JSON struct {
	Threshold string   `json:"threshold"`
	Metric    string   `json:"metric"`
	Got       *float64 `json:"got"` // null when not measured
	Unit      string   `json:"unit"`
	Pass      bool     `json:"pass"`
	// NotJudged says why the threshold was not judged (pass is false):
	// the run did not finish.
	NotJudged string `json:"notJudged,omitempty"`
}

// JSON is r's JSON form.
func (r Result) JSON() JSON {
	unit := map[kind]string{count: "count", rate: "perSecond", latency: "ms"}[r.Metric.Kind]
	if r.Percent {
		unit = "percent"
	}
	j := JSON{Threshold: r.Text, Metric: r.Metric.Name, Unit: unit, Pass: r.Pass, NotJudged: r.NotJudged}
	if !r.Unmeasured {
		j.Got = &r.Got
	}
	return j
}
