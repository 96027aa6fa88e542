package anonymize

import (
	"strings"
	"unicode/utf8"
)

// People write an identifier in forms the byte-wise search does not see:
// in full-width characters (９１３３…, ＳＫＤ２０２４…, as Chinese input
// methods type them), and in groups with spaces or hyphens inside
// (9133 0203 …, 913302-03…, 138 1234 5678). variants finds those: a span
// of identifier characters and single separators is folded (full-width to
// ASCII, lower-case full-width letters to capitals, separators dropped),
// and a part of it made of whole groups that folds to a tax id, a mobile,
// an identity-card number or a value the run replaced elsewhere is
// replaced, its stand-in written back in the same form (full-width where
// it was, the separators where they were).

// maxVariant bounds the folded length of a variant: the identifiers are
// 11 and 18 characters, document codes a few dozen. It bounds the work per
// group, so the search stays linear.
const maxVariant = 64

// foldRune returns the ASCII form of r when r is a character of an
// identifier: an ASCII digit or capital, a full-width digit or letter
// (lower case as a capital: the ｘ of an identity card). fw says it was
// full-width.
func foldRune(r rune) (c byte, fw, ok bool) {
	switch {
	case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
		return byte(r), false, true
	case r >= '０' && r <= '９':
		return byte(r - '０' + '0'), true, true
	case r >= 'Ａ' && r <= 'Ｚ':
		return byte(r - 'Ａ' + 'A'), true, true
	case r >= 'ａ' && r <= 'ｚ':
		return byte(r - 'ａ' + 'A'), true, true
	}
	return 0, false, false
}

// groupSep reports the separators people put inside an identifier: a
// space, a hyphen, and their full-width and ideographic forms.
func groupSep(r rune) bool { return r == ' ' || r == '-' || r == '\u3000' || r == '－' }

// mayHaveVariant is a quick look for anything variants could find: a
// full-width form (its UTF-8 starts with 0xEF), an ideographic space, or a
// separator between two identifier characters.
func mayHaveVariant(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0xEF, c == 0xE3 && strings.HasPrefix(s[i:], "\u3000"):
			return true
		case (c == ' ' || c == '-') && i > 0 && i+1 < len(s) && runChar(s[i-1]) && runChar(s[i+1]):
			return true
		}
	}
	return false
}

// group is a run of identifier characters: s[start:end], folded to ASCII.
type group struct {
	start, end int
	folded     string
	fw         bool // it holds a full-width character
}

// variants returns s with each identifier written in a variant form
// replaced. In a check each one is recorded as a leak and blanked out, so
// the byte-wise search that follows does not report it again.
func (p *pass) variants(s string) string {
	if !mayHaveVariant(s) {
		return s
	}
	var b strings.Builder // empty until something changes
	done := 0             // s[:done] is in b
	var span []group
	flush := func() {
		for a := 0; a < len(span); {
			end, st, found := p.variantAt(s, span, a)
			if end < 0 {
				a++
				continue
			}
			if found {
				if b.Len() == 0 {
					b.Grow(len(s) + 16)
				}
				b.WriteString(s[done:span[a].start])
				if orig := s[span[a].start:span[end].end]; p.check {
					b.WriteString(strings.Repeat(" ", len(orig)))
				} else {
					b.WriteString(reshape(orig, st))
				}
				done = span[end].end
			}
			a = end + 1
		}
		span = span[:0]
	}
	var cur []byte
	gstart, fw := -1, false
	endGroup := func(i int) {
		if gstart >= 0 {
			span = append(span, group{start: gstart, end: i, folded: string(cur), fw: fw})
			gstart, fw, cur = -1, false, cur[:0]
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		p.tick(n)
		if c, f, ok := foldRune(r); ok {
			if gstart < 0 {
				gstart = i
			}
			cur, fw = append(cur, c), fw || f
		} else {
			endGroup(i)
			// One separator between two groups goes on the span; anything
			// else ends it.
			if !(groupSep(r) && len(span) > 0 && span[len(span)-1].end == i) {
				flush()
			} else if next, _ := utf8.DecodeRuneInString(s[i+n:]); i+n >= len(s) {
				flush()
			} else if _, _, ok := foldRune(next); !ok {
				flush()
			}
		}
		i += n
	}
	endGroup(len(s))
	flush()
	if b.Len() == 0 && done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// variantAt looks for an identifier in a variant form starting at group a
// of span, the longest one of whole groups: it returns the last group of
// it (-1: none), and, when it is no stand-in already (found), the stand-in
// to write ("" in a check).
func (p *pass) variantAt(s string, span []group, a int) (last int, standIn string, found bool) {
	// Glued to lower-case letters, the span is part of a longer word (a
	// uuid, a hash), as for runs of plain characters.
	if a == 0 && span[0].start > 0 && isLower(s[span[0].start-1]) {
		return -1, "", false
	}
	d := p.a.r.dict
	var folded []byte
	fw := false
	last = -1
	var kind string
	var c class
	var echo *entry
	afterStandIn := false
	for g := a; g < len(span) && len(folded)+len(span[g].folded) <= maxVariant; g++ {
		folded = append(folded, span[g].folded...)
		fw = fw || span[g].fw
		// A plain run of one group is the byte-wise search's.
		if !fw && g == a {
			continue
		}
		if g == len(span)-1 && span[g].end < len(s) && isLower(s[span[g].end]) {
			continue
		}
		f := string(folded)
		p.tick(len(f))
		if d.isStandIn(f) {
			last, kind, echo, c = g, "", nil, ""
			afterStandIn = true
			continue
		}
		if e := d.m[f]; e != nil && e.orig && searchable(f, e.digits) {
			last, kind, echo, c = g, string(e.class)+" (replaced elsewhere)", e, e.class
			continue
		}
		// A card number is written in groups of four (6222 0212 3456
		// 7890 128); digits grouped otherwise are something else (a uuid
		// of digits, 8-4-4-4-12), which the Luhn check passes by chance.
		ic := identifierClass(f)
		if ic == "" && g > a && bankCardLike(f) {
			ic = bankCard // 4, 5 or 9 as well as 62, in groups
		}
		// A stand-in and the groups after it are no identifier of a shape
		// (a card's four groups and one more that the Luhn check passes
		// by chance): anonymizing found the identifier the stand-in
		// replaced, and the groups after it made none with it. Read so,
		// --check took its own stand-in for a leak.
		if ic != "" && !afterStandIn && (ic != bankCard || groupsOfFour(span[a:g])) {
			last, kind, echo, c = g, string(ic), nil, ic
		}
	}
	if last < 0 || kind == "" {
		return last, "", false
	}
	var f strings.Builder
	for g := a; g <= last; g++ {
		f.WriteString(span[g].folded)
	}
	if p.check {
		p.leak(kind, f.String())
		return last, "", true
	}
	if echo != nil {
		p.counts[Echo]++
		return last, echo.new, true
	}
	p.counts[c]++
	return last, p.a.r.Replace(c, f.String()), true
}

// reshape writes standIn in the form of orig: character for character
// where both have as many identifier characters (full-width where orig's
// was, orig's separators kept), else as a whole, full-width when orig was.
func reshape(orig, standIn string) string {
	var b strings.Builder
	n, allFW := 0, true
	for _, r := range orig {
		if _, fw, ok := foldRune(r); ok {
			n++
			allFW = allFW && fw
		}
	}
	if n != len(standIn) || !isASCII(standIn) {
		if !allFW {
			return standIn
		}
		for _, r := range standIn {
			b.WriteRune(fullWidth(r))
		}
		return b.String()
	}
	k := 0
	for _, r := range orig {
		_, fw, ok := foldRune(r)
		switch {
		case !ok:
			b.WriteRune(r)
		case fw:
			b.WriteRune(fullWidth(rune(standIn[k])))
			k++
		default:
			b.WriteByte(standIn[k])
			k++
		}
	}
	return b.String()
}

// fullWidth is the full-width form of an ASCII letter or digit, r itself
// for anything else.
func fullWidth(r rune) rune {
	switch {
	case r >= '0' && r <= '9':
		return r - '0' + '０'
	case r >= 'A' && r <= 'Z':
		return r - 'A' + 'Ａ'
	case r >= 'a' && r <= 'z':
		return r - 'a' + 'ａ'
	}
	return r
}

// groupsOfFour reports whether every group of gs is four characters long.
func groupsOfFour(gs []group) bool {
	for _, g := range gs {
		if len(g.folded) != 4 {
			return false
		}
	}
	return true
}
