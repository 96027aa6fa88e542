package payload

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
)

// unknownPathError is a --set through a field the spec does not have for
// an event: a typo (data.itemz.0.quantity) that would otherwise build
// objects nobody asked for. It names the path, the event and the nearest
// field.
type unknownPathError struct {
	Path  path
	At    path // the first key the model lacks
	Event string
	Shape spec.Shape
	Hint  string // ` (did you mean "items"?)` or ""
	// Others are the events of the run that have the path.
	Others []string
}

func (e *unknownPathError) Error() string {
	msg := fmt.Sprintf("--set %s: no field %s in %s (%s shape)%s", e.Path, e.At, e.Event, e.Shape, e.Hint)
	if len(e.Others) > 0 {
		msg += fmt.Sprintf("; %s %s it: choose the events with --event", strings.Join(e.Others, ", "), plural(len(e.Others), "has", "have"))
	}
	return msg
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkPaths holds each --set against the spec's model of every event the
// plan makes, in shape: a key missing on the way to the last is an
// *unknownPathError; a last key the model lacks is allowed (sending an
// unknown field is a test worth making) and comes back as a one-line
// warning with its did-you-mean, one per override. Keys under a field the
// model leaves open (itemAttributes, a map) are not judged.
func checkPaths(events []spec.Event, shape spec.Shape, ovs []Override) (warnings []string, err error) {
	for i, ov := range ovs {
		if ov.unset {
			// An unset of a missing path is its own error, except for a
			// key of a map whose keys vary with the generated item.
			ovs[i].mapKey = underMap(events, shape, ov.Path)
			continue
		}
		var lacking, having []string
		var hint, asNumber string
		var last path
		var bad *unknownPathError
		for _, e := range events {
			at, h, missing := walkModel(spec.Body(e, shape), ov.Path)
			switch {
			case !missing:
				having = append(having, e.Name)
				if asNumber == "" {
					asNumber = numberForString(spec.Body(e, shape), ov)
				}
				if asNumber == "" {
					asNumber = stringForNonString(spec.Body(e, shape), shape, ov)
				}
			case len(at) < len(ov.Path):
				if bad == nil {
					bad = &unknownPathError{Path: ov.Path, At: at, Event: e.Name, Shape: shape, Hint: h}
				}
			default:
				lacking = append(lacking, e.Name)
				last = at
				// The first event with a field near the key gives the
				// did-you-mean: a receipt's model has none near an
				// invoice's key (nor the reverse), and under every event,
				// generate's and send's default, a later one must not
				// take the suggestion back.
				if hint == "" {
					hint = h
				}
			}
		}
		if bad != nil {
			bad.Others = having
			return nil, bad
		}
		if len(lacking) > 0 {
			warnings = append(warnings, fmt.Sprintf("--set %s: no field %s in %s (%s shape), added as an unknown field%s",
				ov.Path, last, strings.Join(lacking, ", "), shape, hint))
		}
		if asNumber != "" {
			warnings = append(warnings, asNumber)
		}
	}
	return warnings, nil
}

// numberForString is the warning for a set that gives a string field of
// the model body a JSON number, "" for any other set. The value is taken as
// JSON when it parses, so the digits a user types for a tax id, an employee
// number or an invoice number are sent as a number, a type error, unless
// quoted; the warning says how. (A number may be the edge case meant: it is
// sent as given.)
func numberForString(body spec.Field, ov Override) string {
	raw, ok := ov.Value.(json.RawMessage)
	if !ok || len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return ""
	}
	f, ok := modelAt(body, ov.Path)
	if !ok || f.Type != spec.String {
		return ""
	}
	return fmt.Sprintf("--set %s: %s is sent as a JSON number, but %s is a string; to send the string, quote it: --set %s",
		ov.Path, raw, f.Name, shellcmd.Quote(ov.Path.String()+`="`+string(raw)+`"`))
}

// stringForNonString is the warning for a set that gives a number or
// boolean field of the model body a string, "" for any other set. A word
// is taken as a string, so the audit verdict the help shows,
// data.status=REFUSAL, is a type error in the sample shape, whose status is
// a number (and a mixed shape beside its fields); the warning says so, and
// for a status name gives the number the sample shape writes. (A string
// may be the edge case meant: it is sent as given.)
func stringForNonString(body spec.Field, shape spec.Shape, ov Override) string {
	var v string
	switch x := ov.Value.(type) {
	case string:
		v = x
	case json.RawMessage:
		if len(x) == 0 || x[0] != '"' || json.Unmarshal(x, &v) != nil {
			return ""
		}
	default:
		return ""
	}
	f, ok := modelAt(body, ov.Path)
	if !ok || (f.Type != spec.Integer && f.Type != spec.Number && f.Type != spec.Boolean) {
		return ""
	}
	msg := fmt.Sprintf("--set %s: %q is sent as a string, but %s is %s %s in the %s shape", ov.Path, v, f.Name, article(string(f.Type)), f.Type, shape)
	if f.Name == spec.FieldStatus && (v == spec.StatusPass || v == spec.StatusRefusal) {
		msg += fmt.Sprintf("; whsim writes %s there as %d: --set %s", v, spec.SampleStatus(v),
			shellcmd.Quote(ov.Path.String()+"="+strconv.Itoa(spec.SampleStatus(v))))
	}
	return msg
}

// article is "an" before a word that starts with a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// underMap reports whether the last key of p is a key of a map (an Object
// the model gives no Fields, such as itemAttributes) in some event's model.
func underMap(events []spec.Event, shape spec.Shape, p path) bool {
	if len(p) < 2 {
		return false
	}
	for _, e := range events {
		if f, ok := modelAt(spec.Body(e, shape), p[:len(p)-1]); ok && f.Type == spec.Object && len(f.Fields) == 0 {
			return true
		}
	}
	return false
}

// modelAt is the field of the model f at p, if the model has one.
func modelAt(f spec.Field, p path) (spec.Field, bool) {
	for _, key := range p {
		switch {
		case f.Type == spec.Array && len(f.Fields) > 0:
			if _, err := strconv.Atoi(key); err != nil {
				return spec.Field{}, false
			}
			f = spec.Field{Type: spec.Object, Fields: f.Fields}
		case f.Type == spec.Object && len(f.Fields) > 0:
			found := false
			for _, m := range f.Fields {
				if m.Name == key {
					f, found = m, true
					break
				}
			}
			if !found {
				return spec.Field{}, false
			}
		default:
			return spec.Field{}, false
		}
	}
	return f, true
}

// walkModel follows p through the model f. missing says a key is not in
// it; at is the path up to and with that key, hint the nearest field name
// there.
func walkModel(f spec.Field, p path) (at path, hint string, missing bool) {
	for i, key := range p {
		switch f.Type {
		case spec.Array:
			if _, err := strconv.Atoi(key); err != nil || len(f.Fields) == 0 {
				return nil, "", false // not an index: Apply says so
			}
			f = spec.Field{Type: spec.Object, Fields: f.Fields}
			continue
		case spec.Object:
			if len(f.Fields) == 0 {
				return nil, "", false // a map: any key
			}
		default:
			return nil, "", false // through a scalar: Apply says so
		}
		var names []string
		found := false
		for _, m := range f.Fields {
			names = append(names, m.Name)
			if m.Name == key {
				f, found = m, true
				break
			}
		}
		if !found {
			return p[:i+1], suggest.Hint(key, names), true
		}
	}
	return nil, "", false
}
