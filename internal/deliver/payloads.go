package deliver

import (
	"bytes"
	"encoding/json"
)

// SplitPayloads returns the payloads of a file send delivers: one per
// non-blank line of NDJSON (a first line that is a whole JSON value, with
// more after it), else the body itself. Each is returned with its line, 0 for a
// whole body.
func SplitPayloads(body []byte) (bodies [][]byte, lines []int) {
	first, rest, _ := bytes.Cut(body, []byte("\n"))
	if !json.Valid(first) || len(bytes.TrimSpace(rest)) == 0 {
		return [][]byte{body}, []int{0}
	}
	for i, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			bodies = append(bodies, line)
			lines = append(lines, i+1)
		}
	}
	return bodies, lines
}
