package capture

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/whsim/whsim/internal/jsonlex"
)

// A capture file is untrusted input, and a record that names a member
// twice is read differently by different readers: encoding/json keeps the
// last value of a key (and merges two objects given for a map), other
// decoders the first, and encoding/json also takes "Body" for "body". What
// whsim replays, validates or anonymizes would then not be what another
// tool shows of the same line. So a record whose line names a member of
// the record (or of its response, forward, fault, a delivery or rejected) twice, in
// any case, or a key of a header map twice, is refused rather than read
// as one reader's guess.

// recordObject is an object of the record as encoding/json decodes it:
// a struct, whose keys match its members regardless of case, or a map
// of header names, whose keys are compared regardless of case, as
// HTTP compares them: encoding/json keeps "content-type" and
// "Content-Type" apart, and a replay sent both values under one name in
// the order Go's map gave them, differently from run to run.
type recordObject struct {
	name    string // how a message names it
	members []recordMember
}

// recordMember is a member of a struct object: a scalar when obj and
// elems are nil.
type recordMember struct {
	name  string
	obj   *recordObject // an object: a struct, or a map when obj.members is nil
	elems *recordObject // an array of such objects
}

// The record's objects, by their JSON names (TestRecordObjectsMatchTypes
// holds them to Record's, Response's, Forward's, Fault's, Delivery's and
// Rejected's tags).
var (
	headerMap   = &recordObject{name: "headers"}
	encodingMap = &recordObject{name: "headerEncodings"}
	responseObj = &recordObject{name: "response", members: []recordMember{
		{name: "status"}, {name: "headers", obj: &recordObject{name: "response.headers"}}, {name: "body"}, {name: "bodyEncoding"},
	}}
	forwardObj = &recordObject{name: "forward", members: []recordMember{
		{name: "url"}, {name: "status"}, {name: "headers", obj: &recordObject{name: "forward.headers"}}, {name: "body"},
		{name: "bodyEncoding"}, {name: "latencyMs"}, {name: "error"}, {name: "bodyCut"},
	}}
	deliveryObj = &recordObject{name: "one of fault.deliveries", members: []recordMember{
		{name: "requestId"}, {name: "bytes"}, {name: "status"}, {name: "error"}, {name: "latencyMs"},
	}}
	unansweredObj = &recordObject{name: "unanswered", members: []recordMember{
		{name: "rule"}, {name: "reason"}, {name: "response", obj: &recordObject{name: "unanswered.response", members: responseObj.members}},
	}}
	rejectedObj = &recordObject{name: "rejected", members: []recordMember{
		{name: "reason"}, {name: "head"}, {name: "headEncoding"}, {name: "headBytes"}, {name: "closedAtStop"},
	}}
	faultObj = &recordObject{name: "fault", members: []recordMember{
		{name: "kind"}, {name: "arg"}, {name: "attempt"}, {name: "sender"}, {name: "receiver"}, {name: "window"},
		{name: "deliveries", elems: deliveryObj},
	}}
	recordObj = &recordObject{name: "the record", members: []recordMember{
		{name: "capture"}, {name: "time"}, {name: "remote"}, {name: "method"}, {name: "proto"}, {name: "path"}, {name: "rawPath"}, {name: "pathEncoding"},
		{name: "query"}, {name: "queryEncoding"}, {name: "headers", obj: headerMap},
		{name: "headerEncodings", obj: encodingMap}, {name: "body"}, {name: "bodyEncoding"},
		{name: "bodyOverLimit"}, {name: "response", obj: responseObj}, {name: "unanswered", obj: unansweredObj}, {name: "forward", obj: forwardObj}, {name: "fault", obj: faultObj},
		{name: "rejected", obj: rejectedObj},
	}}
)

// keyStop carries checkKeys' finding out of the lexer's Run.
type keyStop struct{ err error }

// checkKeys says which key of line, a record encoding/json has decoded,
// is named twice; nil when none is. Members whsim does not read are not
// looked into. given has bit i set for each member recordObj.members[i]
// the record gives a value other than null: encoding/json reads a member
// that is absent or null as its zero value, and for "body" that is an
// empty body, not the body that came.
func checkKeys(line []byte) (given uint32, err error) {
	var l jsonlex.Lexer
	// encoding/json has read the line: only its UTF-8 may not be valid,
	// which it repairs and the lexer would refuse, so that is not checked.
	l.ResetUTF8(line)
	defer func() {
		if r := recover(); r != nil {
			stop, ok := r.(keyStop)
			if !ok {
				panic(r)
			}
			err = stop.err
		}
	}()
	// A syntax error cannot follow a successful json.Unmarshal; were one
	// found, the record is read as encoding/json read it.
	_ = l.Run(func() {
		l.Begin()
		given = checkObject(&l, recordObj)
	})
	return given, err
}

// memberBit is the bit of the member of recordObj named name in what
// checkKeys returns.
func memberBit(name string) uint32 {
	for i, m := range recordObj.members {
		if m.name == name {
			return 1 << i
		}
	}
	panic("capture: no record member " + name)
}

// checkObject reads the object at the lexer's position (or whatever value
// is there instead, which encoding/json has already accepted) as o. For a
// struct it returns bit i set for each of o.members[i] given a value that
// is not null.
func checkObject(l *jsonlex.Lexer, o *recordObject) (given uint32) {
	if kind := l.Peek(); kind != jsonlex.Object {
		l.Skip(kind)
		return 0
	}
	// Enter reads an empty object whole: skipping it again would skip
	// the member after it, and no key after that would be looked at.
	if !l.Enter() {
		return 0
	}
	// The keys read so far: for a struct, the key that named each member
	// (by index); for a map, every key.
	var keys []jsonlex.Key
	var seen uint32 // a struct's members named so far, bit i for o.members[i]
	var arr [16]jsonlex.Key
	keys = arr[:0]
	switch {
	case len(o.members) > len(arr):
		keys = make([]jsonlex.Key, len(o.members))
	case o.members != nil:
		keys = arr[:len(o.members)]
	}
	for first := true; ; first = false {
		key := l.Key(first)
		m := recordMember{}
		if o.members != nil {
			i := memberIndex(o.members, l.KeyBytes(key))
			if i < 0 {
				l.Skip(l.Peek()) // a member encoding/json ignores
				if !l.More('}') {
					return given
				}
				continue
			}
			if seen&(1<<i) != 0 {
				panic(keyStop{twiceError(o, o.members[i].name, l.KeyBytes(keys[i]), l.KeyBytes(key))})
			}
			seen |= 1 << i
			keys[i], m = key, o.members[i]
			if l.Peek() != jsonlex.Null {
				given |= 1 << i
			}
		} else {
			name := keyString(l.KeyBytes(key))
			for _, before := range keys {
				if strings.EqualFold(keyString(l.KeyBytes(before)), name) {
					panic(keyStop{twiceError(o, name, l.KeyBytes(before), l.KeyBytes(key))})
				}
			}
			keys = append(keys, key)
		}
		switch {
		case m.obj != nil:
			checkObject(l, m.obj)
		case m.elems != nil:
			checkArray(l, m.elems)
		default:
			l.Skip(l.Peek())
		}
		if !l.More('}') {
			return given
		}
	}
}

// checkArray reads the array at the lexer's position, each element as o.
func checkArray(l *jsonlex.Lexer, o *recordObject) {
	if kind := l.Peek(); kind != jsonlex.Array {
		l.Skip(kind)
		return
	}
	if !l.Enter() { // empty, read whole
		return
	}
	for {
		checkObject(l, o)
		if !l.More(']') {
			return
		}
	}
}

// twiceError says that o names name twice, as before and then as key.
func twiceError(o *recordObject, name string, before, key []byte) error {
	if string(before) == string(key) {
		return fmt.Errorf("%q twice in %s: readers differ on which value counts", name, o.name)
	}
	return fmt.Errorf("%q twice in %s, as %q and %q: readers differ on which value counts, and on whether case matters", name, o.name, before, key)
}

// keyString is a key as encoding/json compares it: each byte that is not
// valid UTF-8 becomes U+FFFD, as it does when it decodes the key. A valid
// key is not copied: the string is valid while b is.
func keyString(b []byte) string {
	if utf8.Valid(b) {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string([]rune(string(b)))
}

// memberIndex is the member of members encoding/json decodes key into,
// -1 for none: the one named key, else one whose name equals key when
// case is folded as encoding/json folds it.
func memberIndex(members []recordMember, key []byte) int {
	for i, m := range members {
		if m.name == string(key) {
			return i
		}
	}
	folded := foldName(keyString(key))
	for i, m := range members {
		if bytes.Equal(foldName(m.name), folded) {
			return i
		}
	}
	return -1
}

// foldName is encoding/json's fold of a member name: two names match when
// their folds are equal.
func foldName(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
	}
	return out
}
