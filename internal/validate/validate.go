// Package validate checks webhook bodies against the interface: strict JSON
// (RFC 8259), the envelope, the event the query names, every field's type,
// format and enumeration, the two invoice shapes, and the arithmetic an ERP's
// documents satisfy. The rules are compiled from the spec model once; a check
// is one pass over the bytes with no intermediate tree, the quick scan
// (fast.go), which only accepts; where it gives up, the detailed scan reads
// the body again and finds what is wrong.
package validate

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
	"github.com/whsim/whsim/internal/termsafe"
)

// Finding is one problem in one body.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity severity `json:"severity"`
	// Path is a readable JSON path (data.收款明细[0].手续费); "" is the
	// whole body.
	Path    string `json:"path"`
	Message string `json:"message"`
	// Line and Column are 1-based, the column in characters; 0 when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// Where is the finding's place as shown beside it: its path, or
// "(request)" for what is wrong with the call around the body (its
// headers, its query, a request the server refused), "(body)" for the
// body as a whole. listen's lines and validate's say it alike.
func (f Finding) Where() string {
	switch {
	case f.Path != "":
		return f.Path
	case strings.HasPrefix(f.Rule, "http-") || f.Rule == RuleQueryEvent || f.Rule == RuleQueryRepeated || f.Rule == ruleReplay:
		return "(request)"
	}
	return "(body)"
}

// Options choose how payloads are judged.
type Options struct {
	// Shape is auto (the default: each invoice's shape follows from its
	// fields), described or sample.
	Shape string
	// Strict makes warnings fail a payload too.
	Strict bool
	// Ignore lists rule ids whose findings are dropped.
	Ignore []string
}

// ShapeAuto is the Options.Shape that infers each body's shape.
const ShapeAuto = "auto"

// ShapeNames lists the valid Options.Shape values.
func ShapeNames() []string { return append([]string{ShapeAuto}, spec.ShapeNames()...) }

// Validator checks bodies. It is built once and safe for concurrent use.
type Validator struct {
	shape    spec.Shape // "" for auto
	strict   bool
	ignored  [64]bool
	data     *node
	ledger   *ledger
	numbers  []int
	kinds    map[int]spec.Kind
	envelope []string // requestId, businessType, data
	pool     sync.Pool
	// keysByRead makes the scan read every key with the lexer's Key and
	// look it up, never comparing the expected member in place (KeyIs):
	// set by a test only, to show both ways find the same.
	keysByRead bool
	// detailedOnly makes every check the detailed scan's, never the
	// quick scan's first (fast.go): set by a test only, to show both
	// find the same.
	detailedOnly bool
}

// New compiles the spec model into a validator.
func New(opts Options) (*Validator, error) {
	v := &Validator{strict: opts.Strict, numbers: spec.BodyNumbers(), kinds: map[int]spec.Kind{}}
	for _, n := range v.numbers {
		v.kinds[n] = spec.EventsForNumber(n)[0].Kind
	}
	switch opts.Shape {
	case "", ShapeAuto:
	default:
		s, err := spec.ParseShape(opts.Shape)
		if err != nil {
			if hint := suggest.Hint(opts.Shape, ShapeNames()); hint != "" {
				return nil, fmt.Errorf("unknown shape %q%s", opts.Shape, hint)
			}
			return nil, fmt.Errorf("unknown shape %q (valid: %s)", opts.Shape, strings.Join(ShapeNames(), ", "))
		}
		v.shape = s
	}
	for _, id := range opts.Ignore {
		r, ok := ruleIndex[id]
		if !ok {
			return nil, &UnknownRuleError{id: id}
		}
		v.ignored[r] = true
	}
	// The envelope members come from the model of any event's body.
	for _, f := range spec.Body(spec.Events()[0], spec.Described).Fields {
		v.envelope = append(v.envelope, f.Name)
	}
	if !slices.Equal(v.envelope, []string{spec.FieldRequestID, spec.FieldBusinessType, spec.FieldData}) {
		return nil, fmt.Errorf("validate: unexpected envelope %q", v.envelope)
	}
	v.data = compileData()
	if err := attachTaxID(v.data); err != nil {
		return nil, err
	}
	var err error
	if v.ledger, err = newLedger(v.data); err != nil {
		return nil, err
	}
	v.pool.New = func() any { return &checker{v: v} }
	return v, nil
}

// UnknownRuleError names a rule id that does not exist.
type UnknownRuleError struct{ id string }

// Error suggests the rule meant when one is close, else lists them all.
func (e *UnknownRuleError) Error() string {
	if hint := suggest.Hint(e.id, ruleIDs()); hint != "" {
		return fmt.Sprintf("unknown rule %q%s", e.id, hint)
	}
	return fmt.Sprintf("unknown rule %q (valid: %s)", e.id, strings.Join(ruleIDs(), ", "))
}

// Check validates one body. event is the event name the query asserted, ""
// when there is none: then the body number alone decides the event.
func (v *Validator) Check(body []byte, event string) []Finding {
	fs, _ := v.checkBody(body, event, false)
	return fs
}

// CheckUTF8 is Check of a body the caller knows to be valid UTF-8 (listen's
// record found it so before the call was answered): the same findings, its
// strings read without checking their UTF-8 a second time.
func (v *Validator) CheckUTF8(body []byte, event string) []Finding {
	fs, _ := v.checkBody(body, event, true)
	return fs
}

// checkBody is Check; utf8OK says body is known to be valid UTF-8, which the
// lexer then does not check again (the findings are the same). notJSON,
// when its line is not 0, is why no rule could look at the body: it is not
// JSON there and json-syntax, the one rule that judges it then, is ignored.
func (v *Validator) checkBody(body []byte, event string, utf8OK bool) (fs []Finding, notJSON syntaxAt) {
	c := v.pool.Get().(*checker)
	c.reset(body)
	if utf8OK {
		c.lx.ResetUTF8(body)
	}
	c.run(event)
	out, bad := c.finish(), c.notJSON
	c.lx.Reset(nil)
	v.pool.Put(c)
	return out, bad
}

// Failed reports whether findings fail a payload: any error, or any
// warning under Strict.
func (v *Validator) Failed(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error || v.strict {
			return true
		}
	}
	return false
}

type rawFinding struct {
	rule ruleID
	off  int
	path string
	msg  string
	// member is the index of the data member whose value the finding is
	// inside, -1 for none: post drops such findings when the member is
	// not a field of the document's kind or shape (see foreignMembers).
	member int8
}

func (c *checker) finish() []Finding {
	if len(c.raw) == 0 {
		return nil
	}
	out := make([]Finding, len(c.raw))
	order := make([]int, len(c.raw))
	for i, r := range c.raw {
		// Messages quote the body's strings (with %q, which escapes what
		// is not printable) and parts of it; termsafe is the guard for
		// any byte a message carries as it is.
		out[i] = Finding{Rule: rules[r.rule].ID, Severity: rules[r.rule].Severity, Path: r.path, Message: termsafe.Text(r.msg)}
		order[i] = i
	}
	// One forward sweep gives every finding its line and column.
	sort.SliceStable(order, func(a, b int) bool { return c.raw[order[a]].off < c.raw[order[b]].off })
	lc := jsonlex.LineCounter{B: c.lx.Bytes()}
	for _, i := range order {
		off := c.raw[i].off
		if off < 0 {
			continue
		}
		line, col := lc.At(off)
		out[i].Line, out[i].Column = line, col
		if c.raw[i].rule == rSyntax {
			out[i].Message = fmt.Sprintf("line %d, column %d: %s", line, col, out[i].Message)
		}
	}
	return out
}
