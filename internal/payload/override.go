package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/spec"
)

// Override is one --set or --unset: a dotted path into the envelope and, for
// a set, the value to put there.
type Override struct {
	Path  path
	Value any // json.RawMessage or string; unused by an unset
	unset bool
	// mapKey: the unset's last key is a key of a map the spec leaves open
	// (itemAttributes), whose keys vary from one generated item to the
	// next: a payload without it has nothing to remove, not an error.
	mapKey bool
}

// path is a parsed dotted path: object keys and array indexes.
type path []string

func (p path) String() string {
	parts := make([]string, len(p))
	for i, s := range p {
		parts[i] = strings.ReplaceAll(s, ".", `\.`)
	}
	return strings.Join(parts, ".")
}

// ParsePath splits a dotted path such as data.items.0.quantity. A backslash
// escapes a dot inside a key. Empty segments are an error.
func ParsePath(s string) (path, error) {
	if s == "" {
		return nil, fmt.Errorf("empty path")
	}
	var (
		p   path
		seg strings.Builder
	)
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '.':
			seg.WriteByte('.')
			i++
		case s[i] == '.':
			if seg.Len() == 0 {
				return nil, fmt.Errorf("path %q: empty segment at byte %d", s, i)
			}
			p = append(p, seg.String())
			seg.Reset()
		default:
			seg.WriteByte(s[i])
		}
	}
	if seg.Len() == 0 {
		return nil, fmt.Errorf("path %q: empty segment at the end", s)
	}
	return append(p, seg.String()), nil
}

// parseSet parses "path=value". The value is taken as JSON when it parses as
// JSON, else as a string, so data.status=REFUSAL and data.items.0.quantity=3
// both do what they say.
func parseSet(s string) (Override, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return Override{}, fmt.Errorf("--set %q: want <path>=<value>", s)
	}
	p, err := ParsePath(k)
	if err != nil {
		return Override{}, fmt.Errorf("--set %q: %w", s, err)
	}
	return Override{Path: p, Value: parseValue(v)}, nil
}

// parseUnset parses the path of an --unset.
func parseUnset(s string) (Override, error) {
	p, err := ParsePath(s)
	if err != nil {
		return Override{}, fmt.Errorf("--unset %q: %w", s, err)
	}
	return Override{Path: p, unset: true}, nil
}

func parseValue(v string) any {
	if json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	return v
}

// Apply applies the overrides to doc in order. A set creates a missing last
// key, and missing objects on the way; an unset of a missing path, an index
// past the end of an array, or a path through a scalar is an error naming
// the path.
func Apply(doc *Obj, ovs []Override) error {
	for _, ov := range ovs {
		var err error
		if ov.unset {
			err = unset(doc, ov.Path, ov.mapKey)
		} else {
			_, err = set(doc, ov.Path, 0, ov.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// PathError says which path could not be set or unset, and why.
type PathError struct {
	op     string // "set" or "unset"
	path   path
	reason string
	// Index: the path names an element an array does not have. The
	// generator varies array lengths, so one payload may have it and
	// the next not.
	index bool
}

func (e *PathError) Error() string {
	return fmt.Sprintf("--%s %s: %s", e.op, e.path, e.reason)
}

// Hint is what a user needs beyond Error when generated payloads differ
// in what they hold: "" when they do not.
func (e *PathError) Hint() string {
	if !e.index {
		return ""
	}
	return " (generated arrays vary in length from one payload to the next: index 0 is in every one)"
}

func set(v any, p path, i int, x any) (any, error) {
	if i == len(p) {
		return x, nil
	}
	key := p[i]
	fail := func(reason string) error {
		return &PathError{op: "set", path: p, reason: fmt.Sprintf("%s at %s", reason, p[:i+1])}
	}
	switch v := v.(type) {
	case *Obj:
		child, ok := v.Get(key)
		if !ok {
			child = &Obj{}
			if i == len(p)-1 {
				child = nil
			}
		}
		nv, err := set(child, p, i+1, x)
		if err != nil {
			return nil, err
		}
		v.Put(key, nv)
		return v, nil
	case []any:
		n, err := strconv.Atoi(key)
		if err != nil || n < 0 {
			return nil, fail("not an array index")
		}
		switch {
		case n < len(v):
			nv, err := set(v[n], p, i+1, x)
			if err != nil {
				return nil, err
			}
			v[n] = nv
			return v, nil
		case n == len(v):
			nv, err := set(&Obj{}, p, i+1, x)
			if i == len(p)-1 {
				nv, err = x, nil
			}
			if err != nil {
				return nil, err
			}
			return append(v, nv), nil
		default:
			err := fail(fmt.Sprintf("index past the end of an array of %d", len(v))).(*PathError)
			err.index = true
			return nil, err
		}
	case nil:
		return set(&Obj{}, p, i, x)
	case json.RawMessage:
		if c, ok := enter(v); ok {
			return set(c, p, i, x)
		}
	}
	// The scalar is at the path so far, not at the key after it.
	return nil, &PathError{op: "set", path: p, reason: fmt.Sprintf("no object or array at %s", p[:i])}
}

// enter returns the object or array an earlier --set gave (raw JSON) as
// an *Obj or []any one level deep, its members still raw, so that a later
// --set or --unset can go into it; ok is false for a scalar. Only a value
// gone into is taken apart: one that is not keeps its bytes (a key
// spelled with \u escapes, say).
func enter(raw json.RawMessage) (v any, ok bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return nil, false
	}
	switch tok {
	case json.Delim('{'):
		o := &Obj{}
		for d.More() {
			key, err := d.Token()
			if err != nil {
				return nil, false
			}
			var m json.RawMessage
			if err := d.Decode(&m); err != nil {
				return nil, false
			}
			o.add(key.(string), m)
		}
		return o, true
	case json.Delim('['):
		a := []any{}
		for d.More() {
			var m json.RawMessage
			if err := d.Decode(&m); err != nil {
				return nil, false
			}
			a = append(a, m)
		}
		return a, true
	}
	return nil, false
}

func unset(doc *Obj, p path, mapKey bool) error {
	fail := func(reason string) error { return &PathError{op: "unset", path: p, reason: reason} }
	var v any = doc
	for i, key := range p {
		last := i == len(p)-1
		switch c := v.(type) {
		case *Obj:
			if last {
				if !c.Delete(key) && !mapKey {
					return fail("no such field")
				}
				return nil
			}
			child, ok := c.Get(key)
			if !ok {
				return fail(fmt.Sprintf("no field at %s", p[:i+1]))
			}
			v = child
		case []any:
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= len(c) {
				pe := fail(fmt.Sprintf("no element at %s", p[:i+1])).(*PathError)
				pe.index = err == nil && n >= len(c)
				return pe
			}
			if last {
				return unsetElem(doc, p[:i], n)
			}
			v = c[n]
		case json.RawMessage:
			// An object or array an earlier --set gave: put it back
			// taken apart, and go into that.
			e, ok := enter(c)
			if !ok {
				return fail(fmt.Sprintf("no object or array at %s", p[:i]))
			}
			if _, err := set(doc, p[:i], 0, e); err != nil {
				return err
			}
			return unset(doc, p, mapKey)
		default:
			return fail(fmt.Sprintf("no object or array at %s", p[:i]))
		}
	}
	return nil
}

// unsetElem removes element n of the array at parent; the array's new,
// shorter slice has to be stored back in its parent.
func unsetElem(doc *Obj, parent path, n int) error {
	arr := lookup(doc, parent).([]any)
	shorter := append(arr[:n:n], arr[n+1:]...)
	_, err := set(doc, parent, 0, shorter)
	return err
}

// Lookup returns the value at p in doc.
func Lookup(doc *Obj, p path) (any, bool) {
	var v any = doc
	for _, key := range p {
		switch c := v.(type) {
		case *Obj:
			var ok bool
			if v, ok = c.Get(key); !ok {
				return nil, false
			}
		case []any:
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= len(c) {
				return nil, false
			}
			v = c[n]
		default:
			return nil, false
		}
	}
	return v, true
}

func lookup(doc *Obj, p path) any {
	v, _ := Lookup(doc, p)
	return v
}

// OverridePaths are the paths the overrides name, sets and unsets, in
// order: a document number under one is the user's, sent as it is, where
// the others get each document's serial (load.Lanes.Set).
func OverridePaths(ovs []Override) [][]string {
	var paths [][]string
	for _, ov := range ovs {
		paths = append(paths, ov.Path)
	}
	return paths
}

// OwnsRequestID reports whether the overrides set or remove the requestId:
// it is then the user's, sent as it is, never replaced by a fresh one.
func OwnsRequestID(ovs []Override) bool {
	for _, ov := range ovs {
		if len(ov.Path) > 0 && ov.Path[0] == spec.FieldRequestID {
			return true
		}
	}
	return false
}
