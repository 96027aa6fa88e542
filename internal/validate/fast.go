package validate

import (
	"strconv"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// The fast accept path. Most bodies break no rule of the scan, and the
// scan's work for them is mostly bookkeeping for findings that never come:
// the path, the member a finding belongs to, a message's arguments. The
// quick scan walks the same model with none of it and answers one
// question, whether the detailed scan (scan.go) would find nothing; it
// gathers the same facts for post (the envelope's number, data's members
// and their offsets, the status variant, the ledger's records), so post's
// findings and the output are the detailed pass's. It gives up on the
// first thing it does not accept, whatever the rule and even when the rule
// is ignored, and the detailed scan then reads the body again from the
// start: the answer never depends on which pass ran. Numbers it reads with
// the lexer's PlainNum, converting the digits as it reads them; a number
// written otherwise (an exponent, more than 15 digits) it leaves to the
// detailed scan.

// quick scans the body and reports whether the detailed scan would find
// nothing; c's facts are then those the detailed scan gathers.
func (c *checker) quick() bool {
	ok := false
	if c.lx.Run(func() {
		c.lx.Begin()
		ok = c.quickEnvelope()
		if ok {
			c.lx.End()
		}
	}) != nil {
		return false
	}
	return ok
}

// rewind readies c for the detailed scan of the body quick gave up on.
func (c *checker) rewind() {
	c.lx.Rewind()
	c.raw, c.path, c.keys = c.raw[:0], c.path[:0], c.keys[:0]
	c.member = -1
	clear(c.dups)
	c.numberState, c.number, c.numberOff, c.dataOff = 0, 0, 0, -1
	c.dataSeen, c.dataNull, c.statusVariant = 0, 0, 0
	for i := range c.recs {
		c.recs[i] = c.recs[i][:0]
	}
}

func (c *checker) quickEnvelope() bool {
	if c.lx.Peek() != jsonlex.Object || !c.lx.Enter() {
		return false
	}
	var seen [3]bool
	for first := true; ; first = false {
		which := -1
		for i, name := range c.v.envelope {
			if !seen[i] {
				if _, ok := c.lx.KeyIs(name); ok {
					which = i
				}
				break // the first member not yet seen is the one a body lists next
			}
		}
		if which < 0 {
			kb := c.lx.KeyBytes(c.lx.Key(first))
			for i, name := range c.v.envelope {
				if string(kb) == name {
					which = i
				}
			}
			if which < 0 || seen[which] {
				return false
			}
		}
		seen[which] = true
		k := c.lx.Peek()
		switch which {
		case 0: // requestId
			if k != jsonlex.String {
				return false
			}
			s, e, esc := c.lx.Str()
			if !spec.Valid(spec.UUID, c.lx.Content(s, e, esc)) {
				return false
			}
		case 1: // businessType
			if k != jsonlex.Number {
				return false
			}
			s, _, f, frac, _, ok := c.lx.PlainNum()
			if !ok || frac {
				return false
			}
			c.numberOff, c.numberState = s, 1
			for _, n := range c.v.numbers {
				if float64(n) == f {
					c.number, c.numberState = n, 2
				}
			}
			if c.numberState != 2 {
				return false
			}
		case 2: // data
			if k != jsonlex.Object || !c.quickObject(c.v.data, -1) {
				return false
			}
		}
		if !c.lx.More('}') {
			break
		}
	}
	return seen[0] && seen[1] && seen[2]
}

func (c *checker) quickValue(n *node, k jsonlex.Kind) bool {
	switch k {
	case jsonlex.Object:
		return c.quickObject(n, -1)
	case jsonlex.Array:
		return c.quickArray(n)
	case jsonlex.String:
		s, e, esc := c.lx.Str()
		return n == nil || c.quickString(n, s, e, esc)
	case jsonlex.Number:
		if n == nil {
			c.lx.Skip(k)
			return true
		}
		return c.quickNumber(n)
	}
	c.lx.Lit(k)
	return true
}

func (c *checker) quickObject(n *node, idx int) bool {
	start := c.lx.Pos()
	base := len(c.keys)
	var seen uint64
	next := 0 // the member after the last one found
	if n != nil && n.record >= 0 {
		c.cur = record{idx: idx}
	}
	if c.lx.Enter() {
		for first := true; ; first = false {
			keyOff := c.lx.Pos()
			if n == nil || n.free {
				// Keys of no member, whose only rule is that none repeats.
				ref := c.lx.Key(first)
				if c.dupOf(base, ref, c.lx.KeyBytes(ref)) {
					return false
				}
				k := c.lx.Peek()
				var elem *node
				if n != nil {
					elem = n.elem
				}
				if elem != nil && !fits(elem, k) || !c.quickValue(elem, k) {
					return false
				}
			} else {
				// keyInPlace, its first guess written out: one call
				// fewer for nearly every member.
				var i int
				var m *member
				if !c.v.keysByRead {
					if next < len(n.members) {
						if want := n.members[next]; want.plain {
							if _, ok := c.lx.KeyIs(want.name); ok {
								i, m = next, want
							}
						}
					}
					if m == nil {
						_, i, m = c.keySampleNext(n, next)
					}
				}
				if m == nil {
					ref := c.lx.Key(first)
					if i, m = n.memberAfter(c.lx.KeyBytes(ref), next); m == nil {
						return false
					}
				}
				bit := uint64(1) << (i & 63) // (i < 64: compile refuses more members; the mask spares the shift its check)
				k := c.lx.Peek()
				if seen&bit != 0 || k == jsonlex.Null || m.hidden && c.v.shape == spec.Described {
					return false
				}
				seen |= bit
				next = i + 1
				if n.data {
					c.dataMemberOff[i] = int32(keyOff)
				}
				mn := m.node
				if m.alt != nil {
					c.statusVariant = 1
					if !fits(mn, k) && fits(m.alt, k) {
						mn = m.alt
						c.statusVariant = 2
					}
					if want := m.variant(c.v.shape); want != nil && want != mn {
						return false // --shape asked for the other type
					}
				}
				if !fits(mn, k) || !c.quickValue(mn, k) {
					return false
				}
			}
			if !c.lx.More('}') {
				break
			}
		}
	}
	c.dropKeys(base)
	if n == nil || n.free {
		return true
	}
	if n.data {
		c.dataSeen, c.dataNull, c.dataOff = seen, 0, start
		return true
	}
	missing := ^seen & (uint64(1)<<len(n.members) - 1)
	if c.v.shape != spec.Sample {
		missing &^= n.hidden
	}
	if missing != 0 {
		return false
	}
	if n.record >= 0 {
		c.recs[n.record] = append(c.recs[n.record], c.cur)
	}
	return true
}

func (c *checker) quickArray(n *node) bool {
	if !c.lx.Enter() {
		return true
	}
	var elem *node
	if n != nil {
		elem = n.elem
	}
	for idx := 0; ; idx++ {
		k := c.lx.Peek()
		switch {
		case elem == nil:
			if !c.quickValue(nil, k) {
				return false
			}
		case k == jsonlex.Null || !fits(elem, k):
			return false
		case k == jsonlex.Object:
			if !c.quickObject(elem, idx) {
				return false
			}
		default:
			if !c.quickValue(elem, k) {
				return false
			}
		}
		if !c.lx.More(']') {
			return true
		}
	}
}

// quickString is checkString's conditions, none of them broken.
func (c *checker) quickString(n *node, s, e int, esc bool) bool {
	if n.values == nil && n.format == "" && !n.taxID {
		return true
	}
	v := c.lx.Content(s, e, esc)
	if !n.knows(v) {
		return false
	}
	switch n.format {
	case spec.CurrencyCode:
		if !spec.Valid(spec.CurrencyCode, v) {
			return false
		}
	case spec.Decimal2:
		if !spec.Valid(spec.Decimal2, v) {
			return false
		}
		if n.slot >= 0 {
			f, _ := strconv.ParseFloat(string(v), 64)
			c.setSlot(n, s, f)
		}
	case spec.UUID:
		if !spec.Valid(spec.UUID, v) {
			return false
		}
	}
	return !n.taxID || checkTaxID(v) == ""
}

// quickNumber is checkNumber's conditions, none of them broken, for a
// number PlainNum reads: no exponent and at most 15 digits, so within a
// double's range, and its value read with the digits.
func (c *checker) quickNumber(n *node) bool {
	s, _, f, frac, neg, ok := c.lx.PlainNum()
	if !ok || n.typ == spec.Integer && frac {
		// (A fraction in an integer is a type error or an integer-form
		// warning, whatever its digits.)
		return false
	}
	if n.format == spec.UnixMillis {
		// Negative (-0 included: it is before 2000), seconds, or out of
		// [2000, 2100): each a finding.
		if neg || f*1000 >= ms2000 && f*1000 < ms2100 || f < ms2000 || f >= ms2100 {
			return false
		}
	}
	if n.slot >= 0 {
		c.setSlot(n, s, f)
	}
	return true
}
