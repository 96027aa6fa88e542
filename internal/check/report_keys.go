package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A report --rerun reads is untrusted input, and a line that names a
// member twice is read differently by different readers: encoding/json
// keeps the last value (and takes "URL" for "url"), other decoders the
// first. What --rerun sends, and where, would then not be what jq or an
// editor shows of the same line. So a line that names a member of any of
// its objects twice, in any case, or a key of a header map twice, in any
// case too (one header to HTTP: the rerun sent both values under one
// name, in the order Go's map gave them), is refused rather than read as
// one reader's guess, as capture records are (capture.Decode).

// keysTwice says which object of line, a report line json.Unmarshal has
// read, names a key twice; nil when none does.
func keysTwice(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	return valueKeysTwice(dec, "the line", "", false)
}

// valueKeysTwice reads the value at dec's position, at where (path is how
// its members are named: "request", "effects.calls[2]"). A struct and a
// map (the headers) alike compare their keys with case folded: encoding/json
// matches a struct's so, and HTTP a header's.
func valueKeysTwice(dec *json.Decoder, where, path string, isMap bool) error {
	tok, err := dec.Token()
	if err != nil {
		return nil // read by json.Unmarshal: cannot fail
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]string{} // the key as compared -> as written
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil
			}
			key, _ := t.(string)
			id := foldKey(key)
			if before, ok := seen[id]; ok {
				if before == key {
					return fmt.Errorf("%q twice in %s: readers differ on which value counts", key, where)
				}
				return fmt.Errorf("%q twice in %s, as %q and %q: readers differ on which value counts, and on whether case matters", before, where, before, key)
			}
			seen[id] = key
			member := path + key
			if isMap {
				member = path[:len(path)-1] + "[" + fmt.Sprintf("%q", key) + "]"
			}
			headers := !isMap && strings.EqualFold(key, "headers")
			if err := valueKeysTwice(dec, member, member+".", headers); err != nil {
				return err
			}
		}
	case json.Delim('['):
		base := strings.TrimSuffix(path, ".")
		for i := 1; dec.More(); i++ {
			elem := fmt.Sprintf("%s[%d]", base, i)
			if err := valueKeysTwice(dec, elem, elem+".", false); err != nil {
				return err
			}
		}
	default:
		return nil // a scalar
	}
	_, _ = dec.Token() // the closing delimiter
	return nil
}

// foldKey is key with each letter folded to one of its cases, so that two
// keys encoding/json takes for the same member (it matches them as
// bytes.EqualFold does) fold alike.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		// The smallest rune of r's fold orbit (K, k and the Kelvin sign
		// among them) stands for all of them.
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}

// bodiesMissing says which request of line, a report line json.Unmarshal
// has read, has no "body" string; nil when each has one. A run writes
// every request whole, an empty body as "": read without one, a case was
// sent with an empty body (a malformed-body case's 4xx to it read FIXED).
func bodiesMissing(line []byte) error {
	var j struct {
		Request *map[string]json.RawMessage `json:"request"`
		Effects *struct {
			Calls []map[string]json.RawMessage `json:"calls"`
		} `json:"effects"`
	}
	if json.Unmarshal(line, &j) != nil {
		return nil // read by json.Unmarshal already, to the same shapes
	}
	hasBody := func(members map[string]json.RawMessage) bool {
		for k, v := range members {
			if foldKey(k) == foldKey("body") {
				return len(v) > 0 && v[0] == '"'
			}
		}
		return false
	}
	if j.Request != nil && *j.Request != nil && !hasBody(*j.Request) {
		return fmt.Errorf(`request: no "body" string: a run writes each request whole (an empty body as "")`)
	}
	if j.Effects != nil {
		for i, call := range j.Effects.Calls {
			if !hasBody(call) {
				return fmt.Errorf(`effects.calls[%d]: no "body" string: a run writes each call whole (an empty body as "")`, i)
			}
		}
	}
	return nil
}

// valueOffset is the offset in line of the value at path, a member of
// each object in turn (matched as encoding/json matches a struct's
// fields, case folded) or, in a list, the element at an index ("2"), or
// -1 when the line has none: where an error about it is placed.
func valueOffset(line []byte, path ...string) int {
	dec := json.NewDecoder(bytes.NewReader(line))
	for len(path) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if tok == json.Delim('[') {
			// A list's element, by its index in path.
			i, err := strconv.Atoi(path[0])
			if err != nil || i < 0 {
				return -1
			}
			for ; i > 0; i-- {
				var skip json.RawMessage
				if !dec.More() || dec.Decode(&skip) != nil {
					return -1
				}
			}
			if !dec.More() {
				return -1
			}
			path = path[1:]
			continue
		}
		if tok != json.Delim('{') {
			return -1
		}
		for {
			if !dec.More() {
				return -1
			}
			t, err := dec.Token()
			if err != nil {
				return -1
			}
			if key, _ := t.(string); strings.EqualFold(key, path[0]) {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return -1
			}
		}
		path = path[1:]
	}
	// After the key: past the colon and the space around it.
	at := int(dec.InputOffset())
	for at < len(line) && (line[at] == ':' || line[at] == ' ' || line[at] == '\t' || line[at] == '\r' || line[at] == '\n') {
		at++
	}
	return at
}
