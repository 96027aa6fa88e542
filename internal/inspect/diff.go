package inspect

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// diff is how the bodies of two calls differ, member by member: the order
// of an object's members does not count, an array's does.
type diff struct {
	A, B  uint64 `json:"-"`
	Equal bool   `json:"equal"`
	// RequestID calls out the requestIds, which differ between any two
	// deliveries and say nothing about the document.
	RequestID   requestIDDiff `json:"requestId"`
	Differences []difference  `json:"differences"`
	// More counts the differences found past maxDifferences or
	// maxDiffBytes and not listed.
	More int `json:"more"`

	listed int // bytes of the paths and values listed
}

// A diff lists at most maxDifferences differences and about maxDiffBytes
// of their paths and values, and counts the rest: each path repeats the
// keys above it, so two 50 KB bodies of one 10,000-byte key over 20,000
// differing items made a 201 MB answer, and a page cannot show 20,000
// rows anyway.
const (
	maxDifferences = 1000
	maxDiffBytes   = 1 << 20
)

// requestIDDiff compares the two requestIds.
type requestIDDiff struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Differ bool   `json:"differ"`
}

// difference is one place where the bodies differ.
type difference struct {
	Path string `json:"path"`
	// Kind is changed (values differ), added (only in b), removed (only in
	// a), type (an object, array or scalar against another kind) or body
	// (one of the bodies is not JSON: the bytes differ).
	Kind string `json:"kind"`
	A    string `json:"a,omitempty"` // the value in a, as JSON
	B    string `json:"b,omitempty"`
}

// diffBodies compares two bodies; the requestId is compared on its own and
// left out of Differences.
func diffBodies(a, b *call) diff {
	d := diff{A: a.ID, B: b.ID, RequestID: requestIDDiff{A: a.RequestID, B: b.RequestID, Differ: a.RequestID != b.RequestID}}
	va, oka := decode(a.content)
	vb, okb := decode(b.content)
	if !oka || !okb {
		if !bytes.Equal(a.content, b.content) {
			d.Differences = append(d.Differences, difference{Kind: "body", A: abbrev(a.content), B: abbrev(b.content)})
		}
	} else {
		compare(&d, "", va, vb)
	}
	d.Equal = len(d.Differences) == 0 && d.More == 0 && !d.RequestID.Differ
	if d.Differences == nil {
		d.Differences = []difference{}
	}
	return d
}

func decode(body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}

func compare(d *diff, path string, a, b any) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			d.add(path, "type", a, b)
			return
		}
		for _, k := range sortedKeys(av) {
			p := validate.JoinKey(path, k)
			if path == "" && k == spec.FieldRequestID {
				continue // called out on its own
			}
			if w, ok := bv[k]; ok {
				compare(d, p, av[k], w)
			} else {
				d.add(p, "removed", av[k], nil)
			}
		}
		for _, k := range sortedKeys(bv) {
			if _, ok := av[k]; !ok && !(path == "" && k == spec.FieldRequestID) {
				d.add(validate.JoinKey(path, k), "added", nil, bv[k])
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok {
			d.add(path, "type", a, b)
			return
		}
		for i := 0; i < len(av) || i < len(bv); i++ {
			p := validate.JoinIndex(path, i)
			switch {
			case i >= len(bv):
				d.add(p, "removed", av[i], nil)
			case i >= len(av):
				d.add(p, "added", nil, bv[i])
			default:
				compare(d, p, av[i], bv[i])
			}
		}
	default:
		switch b.(type) {
		case map[string]any, []any:
			d.add(path, "type", a, b)
			return
		}
		if !scalarEqual(a, b) {
			d.add(path, "changed", a, b)
		}
	}
}

// scalarEqual compares numbers by their exact decimal value (1.0000
// equals 1), other scalars as they are. Compared as float64, two numbers
// past 2^53 or 17 significant digits (a 19-digit id, say) that differ
// read the same.
func scalarEqual(a, b any) bool {
	na, oka := a.(json.Number)
	nb, okb := b.(json.Number)
	if oka && okb {
		if na == nb {
			return true
		}
		da, oka := decimalOf(string(na))
		db, okb := decimalOf(string(nb))
		return oka && okb && da == db
	}
	return a == b
}

// decimal is a number's exact value: digits (no leading or trailing
// zeros, "" for zero) times 10^exp, negative or not.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// decimalOf reads a JSON number exactly, in time linear in its length
// (math/big would raise 10 to an exponent of 1e999999999). ok is false
// for what is not a JSON number or has an exponent past int64.
func decimalOf(s string) (d decimal, ok bool) {
	if d.neg = strings.HasPrefix(s, "-"); d.neg {
		s = s[1:]
	}
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		n, err := strconv.ParseInt(strings.TrimPrefix(e, "+"), 10, 64)
		if err != nil {
			return d, false
		}
		d.exp = n
	}
	whole, frac, _ := strings.Cut(mant, ".")
	if whole == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return d, false
	}
	if d.exp < math.MinInt64+int64(len(frac)) {
		return d, false
	}
	d.exp -= int64(len(frac))
	digits := strings.TrimLeft(whole+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	if d.exp > math.MaxInt64-int64(len(digits)-len(trimmed)) {
		return d, false
	}
	d.exp += int64(len(digits) - len(trimmed))
	d.digits = trimmed
	if d.digits == "" {
		d.neg, d.exp = false, 0 // -0 and 0.000 are 0
	}
	return d, true
}

func (d *diff) add(path, kind string, a, b any) {
	if len(d.Differences) >= maxDifferences || d.listed >= maxDiffBytes {
		d.More++
		return
	}
	x := difference{Path: path, Kind: kind}
	if kind != "added" {
		x.A = jsonText(a)
	}
	if kind != "removed" {
		x.B = jsonText(b)
	}
	d.listed += len(x.Path) + len(x.A) + len(x.B)
	d.Differences = append(d.Differences, x)
}

func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return abbrev(bytes.TrimRight(buf.Bytes(), "\n"))
}

// abbrev keeps a value short enough to show in a table.
func abbrev(b []byte) string {
	const max = 200
	if len(b) <= max {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b[:max], nil)) + "…"
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
