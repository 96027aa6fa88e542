package anonymize

import (
	"errors"
	"fmt"
	"strings"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/jsonstr"
)

// Report counts the values replaced, by class.
type Report map[Class]int

// Add adds the counts of o to r.
func (r Report) Add(o Report) {
	for c, n := range o {
		r[c] += n
	}
}

// Anonymizer replaces the identifying values of payloads. Which fields
// identify someone comes from the spec model (see fieldClasses).
type Anonymizer struct {
	r       *Replacer
	classes map[string]Class
}

// New returns an Anonymizer keyed with key.
func New(key []byte) (*Anonymizer, error) {
	r, err := NewReplacer(key)
	if err != nil {
		return nil, err
	}
	return &Anonymizer{r: r, classes: fieldClasses()}, nil
}

// Replaced is one value the anonymizer changed.
type Replaced struct {
	Class      Class
	Path       string
	Start, End int // the value's bytes in the original body, quotes included
	Old, New   string
}

// Payload returns body with every identifying string value replaced and
// every other byte as it was: key order, white space, escapes and number
// spellings survive, because only the spans of replaced values change.
//
// An identifier that also stands inside another string (a customer's name
// in an unknown field, a document number in an attribute) is replaced there
// too, so that no original survives anywhere in the body.
func (a *Anonymizer) Payload(body []byte) ([]byte, []Replaced, error) {
	var strs []Replaced
	err := walkStrings(body, func(path string, start, end int, v string) {
		if v != "" {
			// The elements of an array of payloads have the paths of one.
			c := a.classes[strings.TrimPrefix(path, "[].")]
			strs = append(strs, Replaced{Class: c, Path: path, Start: start, End: end, Old: v})
		}
	})
	if err != nil {
		return nil, nil, err
	}
	var classified []Replaced
	for i := range strs {
		if x := &strs[i]; x.Class != "" {
			x.New = a.r.Replace(x.Class, x.Old)
			classified = append(classified, *x)
		}
	}
	echoes := echoReplacer(classified)
	var repl []Replaced
	for _, x := range strs {
		if x.Class == "" {
			if x.New = echoes.Replace(x.Old); x.New == x.Old {
				continue
			}
			x.Class = Echo
		}
		repl = append(repl, x)
	}
	out := make([]byte, 0, len(body)+len(body)/8)
	at := 0
	for _, x := range repl {
		out = append(out, body[at:x.Start]...)
		out = jsonstr.Append(out, x.New)
		at = x.End
	}
	return append(out, body[at:]...), repl, nil
}

// minEcho is the shortest identifier (in bytes) replaced where it stands
// inside other text: two CJK characters, or a four-digit code.
const minEcho = 4

// SyntaxError says where a body stops being JSON.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// walkStrings calls fn for every string value of the JSON document in b
// (keys are not values) with its path (array indexes written [], so that
// every element of a list has one path), its span in b and its text. The
// document must be strict JSON (RFC 8259), as the validator reads it.
func walkStrings(b []byte, fn func(path string, start, end int, v string)) error {
	var p strings.Builder
	err := jsonlex.Walk(b, func(path []jsonlex.Seg, v jsonlex.Value) {
		if v.Kind != jsonlex.String {
			return
		}
		p.Reset()
		for _, seg := range path {
			if seg.Index >= 0 {
				p.WriteString("[]")
				continue
			}
			if p.Len() > 0 {
				p.WriteByte('.')
			}
			p.WriteString(seg.Key)
		}
		fn(p.String(), v.Start, v.End, jsonlex.StringAt(b, v.Span))
	})
	var se *jsonlex.SyntaxError
	if errors.As(err, &se) {
		line, col := jsonlex.Position(b, se.Offset)
		return &SyntaxError{Line: line, Column: col, Msg: se.Msg}
	}
	return err
}
