package anonymize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

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
// every element of a list has one path), its span in b and its text.
func walkStrings(b []byte, fn func(path string, start, end int, v string)) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	type frame struct {
		path string
		kind byte // '{' an object, '[' an array, ':' a member's value to come
		key  bool // an object expecting a key next
	}
	var stack []frame
	fail := func(err error) error {
		// The decoder's offsets point near the error; the validating
		// scanner behind Unmarshal names the byte itself.
		var raw json.RawMessage
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(b, &raw), &se) && int(se.Offset) < len(b) {
			line, col := position(b, int(se.Offset)-1)
			return &SyntaxError{Line: line, Column: col, Msg: se.Error()}
		}
		line, col := position(b, int(d.InputOffset()))
		msg := err.Error()
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			msg = "the document ends too early"
		}
		return &SyntaxError{Line: line, Column: col, Msg: msg}
	}
	path := func() string {
		if len(stack) == 0 {
			return ""
		}
		return stack[len(stack)-1].path
	}
	for seen := false; ; seen = true {
		prev := int(d.InputOffset())
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 || !seen {
				return fail(io.ErrUnexpectedEOF)
			}
			return nil
		}
		if err != nil {
			return fail(err)
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.kind == '{' && top.key {
			if k, ok := tok.(string); ok {
				top.key = false
				stack = append(stack, frame{path: join(top.path, k), kind: ':'})
				continue
			}
			// '}' closes the object below.
		}
		valPath := path()
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{path: valPath, kind: '{', key: true})
				continue
			case '[':
				stack = append(stack, frame{path: valPath + "[]", kind: '['})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			start := prev
			for start < len(b) && b[start] != '"' {
				start++
			}
			fn(valPath, start, int(d.InputOffset()), t)
		}
		// A value ended: pop the key frame it belonged to, and let its object
		// expect the next key.
		if len(stack) > 0 && stack[len(stack)-1].kind == ':' {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].key = true
			}
		}
		if len(stack) == 0 && d.More() {
			line, col := position(b, int(d.InputOffset()))
			return &SyntaxError{Line: line, Column: col, Msg: "more than one JSON value"}
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// position turns a byte offset into a 1-based line and column (in bytes).
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + bytes.Count(b[:off], []byte{'\n'})
	return line, off - bytes.LastIndexByte(b[:off], '\n')
}
