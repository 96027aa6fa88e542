// Package suggest finds the name a user probably meant: the "did you mean"
// of unknown events, flags, rule ids and config keys.
package suggest

import "strings"

// Closest returns the candidate nearest to word, compared without regard
// to case, when it is near enough to be a typo: an edit distance of at most
// a third of the word's length (at least 1), or a candidate that starts
// with word. The first of equally near candidates wins. ok is false when
// none is near enough.
func Closest(word string, candidates []string) (best string, ok bool) {
	w := strings.ToLower(word)
	if w == "" {
		return "", false
	}
	limit := max(1, len([]rune(w))/3)
	bestDist := limit + 1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(w, lc)
		if d > limit && len(w) >= 3 && strings.HasPrefix(lc, w) {
			d = limit // a prefix of a longer name: --coun for --count
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, bestDist <= limit
}

// distance is the edit distance between a and b in runes, a swap of two
// neighbours counting as one edit (Levenshtein with transpositions: the
// typo "coutn" is one edit from "count").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		pp, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		rows = [3][]int{prev, cur, pp}
	}
	return rows[1][len(rb)]
}

// Hint returns ` (did you mean "x"?)` for the closest candidate, or "".
func Hint(word string, candidates []string) string {
	if c, ok := Closest(word, candidates); ok {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}
