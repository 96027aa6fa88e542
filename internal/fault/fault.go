// Package fault is the faults listen --forward-to puts on a real sender's
// path: a plan of fault kinds, each with a rate and an argument, parsed
// from --fault specs, and the seeded draw that says which call gets which.
//
// A call gets at most one fault. The draw is a number in [0,1) that
// follows from the seed, the call's requestId and its attempt (the n-th
// time listen saw that requestId); the faults take consecutive shares of
// [0,1), each as wide as its rate. So the same seed over the same traffic
// faults the same calls, whatever their timing, and each fault's share of
// the calls is its rate.
package fault

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/decimal"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/suggest"
)

// Kind is a fault kind.
type Kind string

// Toward the receiver: it sees calls the sender did not make, or not as
// the sender made them.
const (
	Duplicate    Kind = "duplicate"      // forward the call again after its answer
	Burst        Kind = "burst"          // forward N copies at once
	Delay        Kind = "delay"          // wait before forwarding
	Reorder      Kind = "reorder"        // hold calls and forward them shuffled
	Truncate     Kind = "truncate"       // forward the body cut short
	NewRequestID Kind = "new-request-id" // also forward the document under a fresh requestId
)

// Toward the sender: it gets an answer the receiver did not give.
const (
	Drop       Kind = "drop"        // not forwarded; the sender gets 503
	LoseAnswer Kind = "lose-answer" // forwarded; the answer is discarded, the sender gets 504
	Status     Kind = "status"      // not forwarded; the sender gets CODE
)

// Kinds lists every fault kind, in the order help lists them.
func Kinds() []Kind {
	return []Kind{Duplicate, Burst, Delay, Reorder, Truncate, NewRequestID, Drop, LoseAnswer, Status}
}

// KindNames lists the kinds' names.
func KindNames() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, string(k))
	}
	return out
}

// Bounds of the arguments: a fault holds a call for a bounded time and
// multiplies it a bounded number of times, so listen never holds a call
// for ever nor floods the receiver.
const (
	MaxDelay       = 5 * time.Minute
	MaxBurst       = 64
	MaxReorder     = 64
	MaxReorderHold = time.Minute
	DefaultBurst   = 3
	DefaultReorder = 4
	// ReorderHold is how long a reorder window of N calls waits for the
	// N-th before it forwards the calls it holds.
	ReorderHold = time.Second
)

// Fault is one fault of a plan.
type Fault struct {
	Kind Kind
	Rate float64
	// Arg is the argument as given ("" when none); the fields below hold
	// it read.
	Arg string
	// N is burst's copies and reorder's window in calls.
	N int
	// D is delay's wait and reorder's longest hold.
	D time.Duration
	// Code is status's answer.
	Code int
}

// String is the fault as --fault spells it.
func (f Fault) String() string {
	s := string(f.Kind) + "=" + strconv.FormatFloat(f.Rate, 'g', -1, 64)
	if f.Arg != "" {
		s += ":" + f.Arg
	}
	return s
}

// Label is the fault as a call's line shows it: the kind and argument.
func (f Fault) Label() string {
	if f.Arg == "" {
		return string(f.Kind)
	}
	return string(f.Kind) + ":" + f.Arg
}

// Forwards says whether a call with this fault reaches the receiver.
func (f Fault) Forwards() bool { return f.Kind != Drop && f.Kind != Status }

// Error is a --fault spec that cannot be read.
type Error struct {
	Spec string
	Why  string
}

func (e *Error) Error() string { return strconv.Quote(e.Spec) + ": " + e.Why }

// Parse reads one --fault spec: KIND=RATE or KIND=RATE:ARG, the rate a
// share above 0 and at most 1 (0.1) or a percentage (10%).
func Parse(spec string) (Fault, error) {
	f, err := parse(spec)
	if err != nil {
		if specs := several(spec); specs != nil {
			// drop=0.1,duplicate=0.2, as a list of names takes them.
			return Fault{}, &Error{Spec: spec, Why: fmt.Sprintf("one fault per --fault: --fault %s (in a config file or a WHSIM_ variable, a list: [%s])",
				strings.Join(specs, " --fault "), strings.Join(specs, ", "))}
		}
	}
	return f, err
}

func parse(spec string) (Fault, error) {
	bad := func(format string, a ...any) (Fault, error) {
		return Fault{}, &Error{Spec: spec, Why: fmt.Sprintf(format, a...)}
	}
	name, rest, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	kind, known := lookup(name)
	if !known {
		if name == "" {
			return bad("want KIND=RATE[:ARG], e.g. duplicate=0.1 or delay=0.2:300ms (kinds: %s)", strings.Join(KindNames(), ", "))
		}
		if k, arg, found := strings.Cut(name, ":"); found {
			// status:429=0.1, or status:429 alone: the argument before
			// the rate.
			if kind, known := lookup(strings.TrimSpace(k)); known && argHint(kind) != "" {
				arg = strings.TrimSpace(arg)
				if rate := strings.TrimSpace(rest); ok {
					if _, err := parseRate(rate); err == nil {
						return bad("unknown fault %q: the argument goes after the rate: %s=%s:%s", name, kind, rate, arg)
					}
				}
				return bad("unknown fault %q: the argument goes after the rate: %s=RATE:%s (e.g. %s=0.1:%s)", name, kind, arg, kind, arg)
			}
		}
		if hint := suggest.Hint(name, KindNames()); hint != "" {
			return bad("unknown fault %q%s", name, hint)
		}
		return bad("unknown fault %q (kinds: %s)", name, strings.Join(KindNames(), ", "))
	}
	if !ok {
		return bad("want %s=RATE%s, the share of calls it hits (e.g. %s=0.1)", kind, argHint(kind), kind)
	}
	rateText, arg, hasArg := strings.Cut(rest, ":")
	rate, err := parseRate(strings.TrimSpace(rateText))
	if err != nil {
		if asArg := strings.TrimSpace(rateText); asArg != "" && !hasArg && argHint(kind) != "" && (&Fault{Kind: kind, Arg: asArg}).readArg() == nil {
			// status=429: the argument where the rate goes.
			return bad("rate %q: %v; did you mean %s=RATE:%s (e.g. %s=0.1:%s)?", rateText, err, kind, asArg, kind, asArg)
		}
		return bad("rate %q: %v", rateText, err)
	}
	f := Fault{Kind: kind, Rate: rate, Arg: strings.TrimSpace(arg)}
	if hasArg && f.Arg == "" {
		return bad("empty argument after ':'")
	}
	if err := f.readArg(); err != nil {
		return bad("%v", err)
	}
	return f, nil
}

// several splits a spec that holds more than one fault, separated by
// commas or spaces, into faults that each parse; nil when it is not that.
func several(spec string) []string {
	parts := strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(parts) < 2 {
		return nil
	}
	for _, p := range parts {
		if _, err := parse(p); err != nil {
			return nil
		}
	}
	return parts
}

func lookup(name string) (Kind, bool) {
	for _, k := range Kinds() {
		if string(k) == strings.ToLower(name) {
			return k, true
		}
	}
	return "", false
}

func argHint(k Kind) string {
	switch k {
	case Burst:
		return "[:COPIES]"
	case Delay:
		return ":DURATION"
	case Reorder:
		return "[:CALLS|DURATION]"
	case Status:
		return ":CODE"
	}
	return ""
}

func parseRate(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	const want = "want a share of calls above 0 and at most 1 (0.1) or a percentage (10%)"
	if s == "" {
		return 0, errors.New(want)
	}
	v, err := decimal.Parse(strings.TrimSuffix(s, "%"))
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, want)
	}
	if pct {
		v /= 100
	}
	if !(v > 0 && v <= 1) {
		return 0, errors.New("want a share of calls above 0 and at most 1 (0.1 hits one call in ten)")
	}
	return v, nil
}

// readArg checks f.Arg for f.Kind and fills N, D and Code.
func (f *Fault) readArg() error {
	switch f.Kind {
	case Burst:
		f.N = DefaultBurst
		if f.Arg == "" {
			return nil
		}
		n, err := strconv.Atoi(f.Arg)
		if err != nil || n < 2 || n > MaxBurst {
			return fmt.Errorf("burst %q: want a number of copies from 2 to %d", f.Arg, MaxBurst)
		}
		f.N = n
	case Delay:
		if f.Arg == "" {
			return errors.New("delay needs a duration: delay=RATE:DURATION (e.g. delay=0.2:300ms)")
		}
		d, err := time.ParseDuration(f.Arg)
		if err != nil || d <= 0 || d > MaxDelay {
			return fmt.Errorf("delay %q: want a duration above 0 and at most %s (e.g. 300ms, 2s)", f.Arg, MaxDelay)
		}
		f.D = d
	case Reorder:
		f.N, f.D = DefaultReorder, ReorderHold
		if f.Arg == "" {
			return nil
		}
		if n, err := strconv.Atoi(f.Arg); err == nil {
			if n < 2 || n > MaxReorder {
				return fmt.Errorf("reorder %q: want a window of 2 to %d calls, or a duration", f.Arg, MaxReorder)
			}
			f.N = n
			return nil
		}
		d, err := time.ParseDuration(f.Arg)
		if err != nil || d <= 0 || d > MaxReorderHold {
			return fmt.Errorf("reorder %q: want a window of 2 to %d calls, or a duration above 0 and at most %s", f.Arg, MaxReorder, MaxReorderHold)
		}
		f.N, f.D = MaxReorder, d
	case Status:
		if f.Arg == "" {
			return errors.New("status needs a code: status=RATE:CODE (e.g. status=0.05:429)")
		}
		c, err := strconv.Atoi(f.Arg)
		if err != nil || c < 400 || c > 599 {
			return fmt.Errorf("status %q: want a status code from 400 to 599", f.Arg)
		}
		f.Code = c
	default:
		if f.Arg != "" {
			return fmt.Errorf("%s takes no argument (got %q): %s=RATE", f.Kind, f.Arg, f.Kind)
		}
	}
	return nil
}

// same says f and g are one fault, whatever the spelling of their
// arguments: the same kind with the same copies, window, wait or code.
func (f Fault) same(g Fault) bool {
	return f.Kind == g.Kind && f.N == g.N && f.D == g.D && f.Code == g.Code
}

// Plan is the faults of a run and the seed that draws them.
type Plan struct {
	Seed   uint64
	Faults []Fault
}

// ParsePlan reads the --fault specs of a run. Their rates add up to at
// most 1: a call gets one fault at most.
func ParsePlan(specs []string, seed uint64) (Plan, error) {
	p := Plan{Seed: seed}
	sum := 0.0
	for _, s := range specs {
		f, err := Parse(s)
		if err != nil {
			return Plan{}, err
		}
		for _, g := range p.Faults {
			if !g.same(f) {
				continue
			}
			if g.Arg == f.Arg {
				return Plan{}, &Error{Spec: s, Why: fmt.Sprintf("%s is given twice; give it once with the rate you want", f.Label())}
			}
			// Spelt apart (status:0429, delay:1000ms, reorder:4), the
			// same fault: its calls would be counted, and held, apart.
			return Plan{}, &Error{Spec: s, Why: fmt.Sprintf("%s is %s again; give it once with the rate you want", f.Label(), g.Label())}
		}
		sum += f.Rate
		p.Faults = append(p.Faults, f)
	}
	if sum > 1+1e-9 {
		// As many digits as show the sum over 1: 1.0001 is "1" in four.
		said := strconv.FormatFloat(sum, 'g', 4, 64)
		for prec := 5; said == "1" && prec <= 12; prec++ {
			said = strconv.FormatFloat(sum, 'g', prec, 64)
		}
		return Plan{}, &Error{Spec: strings.Join(specs, " "), Why: fmt.Sprintf(
			"the rates add up to %s: a call gets one fault at most, so they must add up to 1 or less", said)}
	}
	return p, nil
}

// Empty says the plan faults no call.
func (p Plan) Empty() bool { return len(p.Faults) == 0 }

// Describe is the plan as listen prints it at start: each fault with its
// share in percent.
func (p Plan) Describe() string {
	var parts []string
	for _, f := range p.Faults {
		parts = append(parts, f.Label()+" "+percent(f.Rate)+"%")
	}
	return strings.Join(parts, ", ")
}

// percent is a share of calls (above 0, at most 1) in percent as a person
// reads it: four significant digits in plain decimals, "0.00001" for 1e-7,
// never "1e-05" and never "0" (a rate above 0 faults some calls).
func percent(rate float64) string {
	// FormatFloat's output always parses: the error is never set.
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(rate*100, 'g', 4, 64), 64)
	return strconv.FormatFloat(rounded, 'f', -1, 64)
}

// Draw returns the fault the call with this requestId gets on this attempt
// (from 1), if any. key is the requestId, or what stands for it when the
// call has none.
func (p Plan) Draw(key string, attempt int) (Fault, bool) {
	if len(p.Faults) == 0 {
		return Fault{}, false
	}
	u := Unit(p.Seed, key, attempt)
	at := 0.0
	for _, f := range p.Faults {
		at += f.Rate
		if u < at {
			return f, true
		}
	}
	return Fault{}, false
}

// Unit is the draw of (seed, key, attempt): a number in [0,1).
func Unit(seed uint64, key string, attempt int) float64 {
	h := reqid.Spread(seed ^ reqid.Spread(reqid.Hash(key)^reqid.Spread(uint64(attempt)+0x9e3779b97f4a7c15)))
	return float64(h>>11) / (1 << 53)
}

// Sub is a number drawn from the same three for a fault's own choices (which
// cut, which order), apart from the draw that chose the fault.
func Sub(seed uint64, key string, attempt int, n uint64) uint64 {
	return reqid.Spread(seed ^ reqid.Spread(reqid.Hash(key)^reqid.Spread(uint64(attempt))^reqid.Spread(n+0x6a09e667f3bcc909)))
}
