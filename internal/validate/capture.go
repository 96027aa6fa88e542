package validate

import (
	"encoding/json"
	"fmt"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
)

// isCapture reports whether a line is a capture record written by listen
// rather than a plain payload.
func isCapture(line []byte) bool { return input.IsRecord(line) }

// checkCapture validates the request body of one capture record: the
// query's businessType is the event. A line that is not a readable record,
// or a query without businessType, is an error finding; torn says the line
// is a record cut short (input.CutShort), which has none.
func (v *Validator) checkCapture(line []byte) (fs []Finding, torn bool) {
	c := v.pool.Get().(*checker)
	rec, ok := leanRecord(&c.lx, line)
	c.lx.Reset(nil)
	v.pool.Put(c)
	if !ok { // the slow path, and its error messages (leanrecord.go)
		rec = capture.Record{}
		if err := json.Unmarshal(line, &rec); err != nil {
			if input.CutShort(line) {
				return nil, true
			}
			return v.single(ruleCapture, fmt.Sprintf("not a readable capture record: %v", err)), false
		}
	}
	return v.CheckRecord(&rec), false
}

// CheckRecord validates the request body of a capture record as
// checkCapture does.
func (v *Validator) CheckRecord(rec *capture.Record) []Finding {
	body, err := rec.RequestBody()
	if err != nil {
		return v.single(ruleCapture, fmt.Sprintf("the record's body (%s) cannot be decoded: %v", rec.BodyEncoding, err))
	}
	event, ok := rec.Event()
	if !ok {
		fs := v.single(RuleQueryEvent, fmt.Sprintf("the captured query %q has no businessType", rec.Query))
		return append(fs, v.Check(body, "")...)
	}
	if event == "" {
		fs := v.single(RuleQueryEvent, "the captured query's businessType is empty")
		return append(fs, v.Check(body, "")...)
	}
	return v.Check(body, event)
}

func (v *Validator) single(rule, msg string) []Finding {
	r := ruleIndex[rule]
	if v.ignored[r] {
		return nil
	}
	return []Finding{{Rule: rule, Severity: rules[r].Severity, Message: msg}}
}
