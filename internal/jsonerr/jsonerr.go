// Package jsonerr says what encoding/json could not read in the words of
// the file that held it: the member by its JSON path and what it holds,
// rather than Go's struct and type names ("json: cannot unmarshal string
// into Go struct field CaseRecord.request.copies of type int"), which name
// nothing the person who wrote or edited the file can find in it.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// Describe is err, an error of json.Unmarshal or a Decoder, said in JSON's
// terms: "request.copies: want a whole number, got a string"; root names
// the whole value ("the line") for an error of no member. Errors of
// another kind are said as they are.
func Describe(err error, root string) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Sprintf("%s: want %s, got %s", path(te.Field, root), want(te.Type), got(te.Value))
	}
	if pe, ok := errors.AsType[*time.ParseError](err); ok {
		return fmt.Sprintf("%q: want a time as RFC 3339 writes it (2026-11-22T04:24:23.774512Z)", pe.Value)
	}
	if offset, msg, ok := Syntax(err); ok {
		return fmt.Sprintf("not JSON at byte %d %s", offset, strings.TrimPrefix(msg, "not JSON "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Syntax is err's syntax error, when it holds one, said as Describe says
// it but for its place: the byte it stopped at (1 for the first, the
// column in a line of JSON) apart, and msg "not JSON (...)", for a caller
// that writes the place as input.At does (name:line:column: msg).
func Syntax(err error) (offset int64, msg string, ok bool) {
	if se, ok := errors.AsType[*SyntaxError](err); ok {
		return se.Offset, "not JSON (" + byteNamed(se) + ")", true
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return se.Offset, "not JSON (" + strings.TrimPrefix(se.Error(), "json: ") + ")", true
	}
	return 0, "", false
}

// Placed is err, encoding/json's error of reading b, with a syntax error
// found again by whsim (FirstSyntaxError): placed and worded as Go 1.26's
// encoding/json did, as Describe says it, where Go 1.27's (json/v2
// inside) places a fault past a multi-byte character and names a byte
// as '\xff'. Any other error is returned as it is.
func Placed(err error, b []byte) error {
	if _, ok := errors.AsType[*json.SyntaxError](err); !ok {
		return err
	}
	if se := FirstSyntaxError(b); se != nil {
		return se
	}
	return err
}

// byteNamed is se's message with the byte it stopped at named by its
// value when it is over 0x7f. encoding/json names such a byte as the
// Latin-1 character of its value ('ï' for 0xef, the first of a byte-order
// mark; 'â' for a curly quote's first; '\u00a0'), which is no character
// the file holds.
func byteNamed(se *SyntaxError) string {
	if !se.AtByte || se.Byte < utf8.RuneSelf {
		return se.Msg
	}
	msg := fmt.Sprintf("invalid byte 0x%02x %s", se.Byte, se.Context)
	if se.Byte == 0xef && se.Offset == 1 {
		msg += ": a byte-order mark starts so"
	}
	return msg
}

// path is a member's path as the file names it: encoding/json starts it
// with the Go names of the embedded structs it went through, which begin
// with a capital letter where whsim's JSON names never do.
func path(field, root string) string {
	parts := strings.Split(field, ".")
	for len(parts) > 1 && parts[0] != "" && parts[0][0] >= 'A' && parts[0][0] <= 'Z' {
		parts = parts[1:]
	}
	if p := strings.Join(parts, "."); p != "" {
		return p
	}
	return root
}

// want names what a Go type reads in JSON.
func want(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[time.Time]() {
		return "a time (a string)"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// got names what the file held, as UnmarshalTypeError.Value gives it.
func got(value string) string {
	if n, ok := strings.CutPrefix(value, "number "); ok {
		return n
	}
	switch value {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return value
}
