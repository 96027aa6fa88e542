package jsonerr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

type Inner struct {
	Copies  int                 `json:"copies"`
	Headers map[string][]string `json:"headers"`
	Time    time.Time           `json:"time"`
	Latency float64             `json:"latencyMs"`
	AtOnce  bool                `json:"atOnce"`
}

type outer struct {
	Inner
	Request *Inner `json:"request"`
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`{"request":{"copies":"8"}}`, `request.copies: want a whole number, got a string`},
		// The embedded struct's Go name is no member of the file.
		{`{"copies":1e400}`, `copies: want a whole number, got 1e400`},
		{`{"copies":-1.5}`, `copies: want a whole number, got -1.5`},
		{`{"latencyMs":1e999}`, `latencyMs: want a number, got 1e999`},
		{`{"request":{"headers":{"X-A":"v"}}}`, `request.headers: want a list, got a string`},
		{`{"request":{"headers":{"X-A":[1]}}}`, `request.headers: want a string, got a number`},
		{`{"request":[]}`, `request: want an object, got a list`},
		{`{"atOnce":"yes"}`, `atOnce: want true or false, got a string`},
		{`{"copies":true}`, `copies: want a whole number, got true or false`},
		{`[1]`, `the line: want an object, got a list`},
		{`{"time":"yesterday"}`, `"yesterday": want a time as RFC 3339 writes it (2026-11-22T04:24:23.774512Z)`},
		{`{"a":}`, `not JSON at byte 6 (invalid character '}' looking for beginning of value)`},
		// encoding/json names a byte over 0x7f as the Latin-1 character
		// of its value ('ï' for a byte-order mark's first, 'â' for a curly
		// quote's): none the file holds, so the byte is named.
		{"\ufeff{}", `not JSON at byte 1 (invalid byte 0xef looking for beginning of value: a byte-order mark starts so)`},
		{"{\u201ca\u201d:1}", `not JSON at byte 2 (invalid byte 0xe2 looking for beginning of object key string)`},
		{"{\"a\":\u0085}", `not JSON at byte 6 (invalid byte 0xc2 looking for beginning of value)`},
		{"{\"a\":1}\xa0", `not JSON at byte 8 (invalid byte 0xa0 after top-level value)`},
		{"{\"a\":1}\xad", `not JSON at byte 8 (invalid byte 0xad after top-level value)`},
		{"{\"a\":1}\x85", `not JSON at byte 8 (invalid byte 0x85 after top-level value)`},
	} {
		var o outer
		err := json.Unmarshal([]byte(tt.in), &o)
		if err == nil {
			t.Fatalf("%s: read without error", tt.in)
		}
		if got := Describe(Placed(err, []byte(tt.in)), "the line"); got != tt.want && !deeper(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
	if got := Describe(errors.New("json: something else"), "the line"); got != "something else" {
		t.Errorf("another error: %q", got)
	}
}

// deeper says got is want said of a member inside want's: Go 1.27's
// encoding/json (json/v2 inside) names the map key and list index that
// held the wrong value ("request.headers.X-A.0"), Go 1.26's the field
// that holds the map ("request.headers").
func deeper(got, want string) bool {
	wantPath, wantRest, ok := strings.Cut(want, ": ")
	if !ok {
		return false
	}
	gotPath, gotRest, ok := strings.Cut(got, ": ")
	return ok && gotRest == wantRest && strings.HasPrefix(gotPath, wantPath+".")
}

// FuzzDescribe: whatever encoding/json refuses is said without Go's names
// for it, and never empty.
func FuzzDescribe(f *testing.F) {
	f.Add([]byte(`{"request":{"copies":"8"}}`))
	f.Add([]byte(`{"copies":1e400,"time":"x"}`))
	f.Add([]byte(`[{"a":}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var o outer
		err := json.Unmarshal(b, &o)
		if err == nil {
			return
		}
		got := Describe(err, "the line")
		if got == "" || strings.Contains(got, "Go struct") || strings.Contains(got, "Go value") {
			t.Errorf("%q: %q", b, got)
		}
	})
}
