package anonymize

import "strings"

// claimed is a text whose identifiers found by their written form (a
// landline, an account after its label, a street address) claim their
// spans: each goes to its stand-in, or in a check is recorded as a leak,
// and only the text between them is searched further, by rest.
type claimed struct {
	p    *pass
	s    string
	rest func(string) string
	b    strings.Builder // empty until something is claimed
	done int             // s[:done] is in b
}

// claim takes s[start:end], an identifier of class c known by key (its
// digits folded to ASCII, or the text itself). With reshaped, its stand-in
// is written in the original's form (full-width digits, separators).
func (w *claimed) claim(start, end int, c class, key string, reshaped bool) {
	form := func(_, standIn string) string { return standIn }
	if reshaped {
		form = reshape
	}
	w.claimForm(start, end, c, key, form)
}

// claimForm is claim with the stand-in written as form makes it of the
// original and the stand-in of key (a landline's international form
// leaves out the 0 its key has).
func (w *claimed) claimForm(start, end int, c class, key string, form func(orig, standIn string) string) {
	orig := w.s[start:end]
	w.b.WriteString(w.rest(w.s[w.done:start]))
	switch {
	case w.p.a.r.dict.isStandIn(key) || w.standInAt(start, end):
		// A stand-in claims its span too: the check must read the
		// output as anonymizing read the input.
		w.b.WriteString(orig)
	case w.p.check:
		w.p.leak(string(c), orig)
	default:
		w.b.WriteString(form(orig, w.p.a.r.Replace(c, key)))
		w.p.counts[c]++
	}
	w.done = end
}

// standInAt reports whether a stand-in of the run starts at s[start] and
// covers s[start:end]. A stand-in keeps the form of what it replaced (an
// address cut short, 区场A, became 山东省青岛市崂山区文海路G), and read
// again the identifier found in it may end before the stand-in does: the
// check took that part of a stand-in for a leak.
func (w *claimed) standInAt(start, end int) bool {
	n, e := w.p.a.r.dict.match(w.s, start, &w.p.a.work)
	return e != nil && e.stand && start+n >= end
}

// addressEnd returns where the address found by its shape at
// s[start:end] ends: at the end of a longer address the run replaced that
// starts there (a field's whole value, 文三路478号 华星时代广场A座1201室),
// as the shape's search stops at a space, a comma or a bracket. One
// address is one stand-in wherever it stands; cut at the space, its first
// part got another, and the building after it was left in the clear. A
// stand-in written there is taken whole too, so that --check reads it as
// anonymizing wrote it, not its bracketed building as an address of its own.
func (w *claimed) addressEnd(start, end int) int {
	n, e := w.p.a.r.dict.match(w.s, start, &w.p.a.work)
	if e != nil && (e.orig && e.class == streetAddress || e.stand) && start+n > end {
		return start + n
	}
	// The same in full-width digits and letters (文三路４７８号 华星…Ａ座):
	// the dictionary holds addresses folded to ASCII (claimAddress).
	window := w.s[start:min(len(w.s), start+3*maxEcho)]
	if !strings.ContainsFunc(window, isFullWidthAlnum) {
		return end
	}
	folded, at := foldWidthIndex(window)
	n, e = w.p.a.r.dict.match(folded, 0, &w.p.a.work)
	if e != nil && (e.orig && e.class == streetAddress || e.stand) && start+at[n] > end {
		return start + at[n]
	}
	return end
}

// foldWidthIndex is foldWidth of s with, for each byte offset of the
// folded text (and its end), the offset in s it came from.
func foldWidthIndex(s string) (string, []int) {
	b := make([]byte, 0, len(s))
	at := make([]int, 0, len(s)+1)
	for i, r := range s {
		f, _ := foldWidth(string(r))
		for range len(f) {
			at = append(at, i)
		}
		b = append(b, f...)
	}
	return string(b), append(at, len(s))
}

// text is the whole text: s itself in a check, else the stand-ins and
// what rest made of the text between them.
func (w *claimed) text() string {
	if w.done == 0 {
		return w.rest(w.s)
	}
	w.b.WriteString(w.rest(w.s[w.done:]))
	if w.p.check {
		return w.s
	}
	return w.b.String()
}

// claimAddress claims the address at s[start:end]. Its full-width digits
// and letters (文三路４７８号, Ａ座) are folded to ASCII for its key, so
// that it is the same address, and the same stand-in, as where it is
// written in ASCII; the stand-in is written back in full width.
func (w *claimed) claimAddress(start, end int) {
	orig := w.s[start:end]
	key, wide := foldWidth(orig)
	if !wide {
		w.claim(start, end, streetAddress, orig, false)
		return
	}
	w.claimForm(start, end, streetAddress, key, func(_, standIn string) string {
		var b strings.Builder
		for _, r := range standIn {
			b.WriteRune(fullWidth(r))
		}
		return b.String()
	})
}

// foldWidth returns s with its full-width digits and letters in ASCII,
// and whether it held any.
func foldWidth(s string) (string, bool) {
	if !strings.ContainsFunc(s, isFullWidthAlnum) {
		return s, false
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '０' && r <= '９':
			return r - '０' + '0'
		case r >= 'Ａ' && r <= 'Ｚ':
			return r - 'Ａ' + 'A'
		case r >= 'ａ' && r <= 'ｚ':
			return r - 'ａ' + 'a'
		}
		return r
	}, s), true
}
