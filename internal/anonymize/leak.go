package anonymize

import "strings"

// Leak is something in the output that still looks like it identifies a
// person or a company: a tax id, a mobile number or an identity-card number
// that is not one of the stand-ins the anonymizer wrote.
type Leak struct {
	Line int    // the output's line (1-based), for NDJSON and captures the record
	Kind string // "tax id", "mobile number", "identity card number"
	// Text is the value with its middle masked: the report must not repeat
	// what it warns about.
	Text string
}

// leaks scans text, which starts on line, for runs of digits and capital
// letters that look like identifiers and are not among the stand-ins.
func leaks(text string, line int, standIns map[string]bool) []Leak {
	var out []Leak
	for i := 0; i < len(text); {
		if !runChar(text[i]) {
			if text[i] == '\n' {
				line++
			}
			i++
			continue
		}
		j := i
		for j < len(text) && runChar(text[j]) {
			j++
		}
		if run := text[i:j]; !standIns[run] {
			if kind := identifierKind(run); kind != "" {
				out = append(out, Leak{Line: line, Kind: kind, Text: mask(run)})
			}
		}
		i = j
	}
	return out
}

func runChar(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }

// identifierKind names what run looks like, or "".
func identifierKind(run string) string {
	switch {
	case len(run) == 18 && idCard(run):
		return "identity card number"
	case len(run) == 18 && usccLike(run):
		return "tax id"
	case len(run) == 11 && allDigits(run) && run[0] == '1' && run[1] >= '3':
		return "mobile number"
	}
	return ""
}

// idCard checks a resident identity card number (GB 11643): 17 digits, a
// plausible birth date, and the ISO 7064 MOD 11-2 check character.
func idCard(s string) bool {
	if !allDigits(s[:17]) {
		return false
	}
	y := s[6:10]
	if y < "1900" || y > "2099" || s[10:12] < "01" || s[10:12] > "12" || s[12:14] < "01" || s[12:14] > "31" {
		return false
	}
	w := [17]int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i := range 17 {
		sum += int(s[i]-'0') * w[i]
	}
	return "10X98765432"[sum%11] == s[17]
}

func mask(s string) string {
	if len(s) <= 6 {
		return strings.Repeat("*", len(s))
	}
	return s[:3] + strings.Repeat("*", len(s)-6) + s[len(s)-3:]
}

// usccLike reports the shape of a unified social credit code, whether or not
// its check characters hold (early pilot codes fail them, some with letters
// outside the alphabet): the registering authority, a kind digit and a
// six-digit region.
func usccLike(s string) bool {
	return strings.IndexByte("123456789ANY", s[0]) >= 0 && s[1] >= '1' && s[1] <= '9' && allDigits(s[2:8])
}
