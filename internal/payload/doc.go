package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/whsim/whsim/internal/fake"
	"github.com/whsim/whsim/internal/jsonstr"
)

// Obj is a JSON object that keeps its members in order, so that the same seed
// gives the same bytes and payloads read like the spec's tables.
//
// A document is built from these values: *Obj, []any, string, int64, int,
// fake.Decimal, bool, nil and json.RawMessage (a value from --set).
type Obj struct {
	Members []member
}

// member is one key and value of an Obj.
type member struct {
	Key string
	Val any
}

// add appends a member and returns o, for building documents in one
// expression.
func (o *Obj) add(key string, val any) *Obj {
	o.Members = append(o.Members, member{key, val})
	return o
}

// Get returns the value of the member named key.
func (o *Obj) Get(key string) (any, bool) {
	if i := o.index(key); i >= 0 {
		return o.Members[i].Val, true
	}
	return nil, false
}

// Put sets the member named key, appending it when it is new.
func (o *Obj) Put(key string, val any) {
	if i := o.index(key); i >= 0 {
		o.Members[i].Val = val
		return
	}
	o.add(key, val)
}

// Delete removes the member named key and reports whether it was there.
func (o *Obj) Delete(key string) bool {
	i := o.index(key)
	if i < 0 {
		return false
	}
	o.Members = append(o.Members[:i], o.Members[i+1:]...)
	return true
}

func (o *Obj) index(key string) int {
	for i, m := range o.Members {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of o.
func (o *Obj) Clone() *Obj { return clone(o).(*Obj) }

func clone(v any) any {
	switch v := v.(type) {
	case *Obj:
		c := &Obj{Members: make([]member, len(v.Members))}
		for i, m := range v.Members {
			c.Members[i] = member{m.Key, clone(m.Val)}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = clone(e)
		}
		return c
	case json.RawMessage:
		return append(json.RawMessage(nil), v...)
	default:
		return v
	}
}

// Marshal encodes v as compact JSON.
func Marshal(v any) []byte { return appendJSON(nil, v) }

// MarshalIndent encodes v as JSON indented by two spaces, ending in a newline.
func MarshalIndent(v any) []byte {
	var buf bytes.Buffer
	// Indent only fails on invalid JSON, which appendJSON never writes.
	_ = json.Indent(&buf, Marshal(v), "", "  ")
	buf.WriteByte('\n')
	return buf.Bytes()
}

// appendJSON appends the compact JSON encoding of v to b. It is hand-written
// because reflection-based encoding was the generator's largest cost.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case *Obj:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, m.Key)
			b = append(b, ':')
			b = appendJSON(b, m.Val)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case string:
		return jsonstr.Append(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case fake.Decimal:
		return v.AppendJSON(b)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	case json.RawMessage:
		var buf bytes.Buffer
		if json.Compact(&buf, v) != nil {
			// Only valid JSON becomes a RawMessage (see parseValue).
			return append(b, v...)
		}
		return append(b, buf.Bytes()...)
	default:
		// Documents are built only by this package; another type is a bug here.
		panic(fmt.Sprintf("payload: cannot encode %T", v))
	}
}
