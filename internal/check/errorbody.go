package check

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// bodySaysFailed says what in a 2xx answer's body (its start, as kept)
// says the call failed: a top-level "success" or "ok" of false, or an
// "error" that is a non-empty string or an object, in the receiver's
// words (`"success": false`); "" for a body that says no such thing, or
// is no JSON object. The spec names no answer body, and the ERP takes any
// 2xx as delivered: a receiver that says in its body that it failed has
// the call counted delivered and never sent again. Only the members read
// before the kept start ends are looked at.
func bodySaysFailed(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		switch key {
		case "success", "ok":
			if string(v) == "false" {
				return strconv.Quote(key) + ": false"
			}
		case "error":
			var s string
			switch {
			case json.Unmarshal(v, &s) == nil && s != "":
				return `"error": ` + strconv.Quote(s)
			case len(v) > 0 && v[0] == '{':
				return `"error": {…}`
			}
		}
	}
	return ""
}
