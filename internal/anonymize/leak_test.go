package anonymize

// leaks scans text, which starts on line, for runs of digits and capital
// letters that look like identifiers and are not among the stand-ins: the
// tests' own scan of whole files by identifierKind. --check does not use
// it (each pass reports what it finds, pass.leak), so it lives here, not
// in the code whsim runs, where a mutation sweep found it changeable with
// no effect on whsim.
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
