package sendout

import (
	"bytes"
	"fmt"

	"github.com/whsim/whsim/internal/threshold"
)

// appendThresholdsText lists each threshold with its measured value and
// whether it held.
func appendThresholdsText(b []byte, rs []threshold.Result, fail, ok string) []byte {
	if len(rs) == 0 {
		return b
	}
	w := 0
	for _, r := range rs {
		w = max(w, len(r.Text))
	}
	b = append(b, "thresholds:\n"...)
	for _, r := range rs {
		verdict := ok
		if !r.Pass {
			verdict = fail
		}
		b = fmt.Appendf(b, "  %-*s  %s %s  %s\n", w, r.Text, r.Metric.Name, r.GotText(), verdict)
	}
	return b
}

// appendThresholdsJSON puts "thresholds" into the summary object the
// stats' line holds ({"summary":{...}}\n), last.
func appendThresholdsJSON(line []byte, rs []threshold.Result) []byte {
	if len(rs) == 0 {
		return line
	}
	body, ok := bytes.CutSuffix(line, []byte("}}\n"))
	if !ok {
		return line
	}
	list := make([]threshold.JSON, len(rs))
	for i, r := range rs {
		list[i] = r.JSON()
	}
	out := append(body, `,"thresholds":`...)
	out = append(out, bytes.TrimSuffix(marshalJSONLine(list), []byte("\n"))...)
	return append(out, "}}\n"...)
}
