package reqid

import (
	"slices"
	"strings"
	"testing"
)

func TestFindAndSpliceRequestID(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"requestId":"abc","businessType":1}`, `{"requestId":"NEW","businessType":1}`},
		{"{ \"data\": {\"requestId\":\"inner\"},\n  \"requestId\" :  \"x\\\"y\" }", "{ \"data\": {\"requestId\":\"inner\"},\n  \"requestId\" :  \"NEW\" }"},
		{`{"requestId":5}`, ""},
		{`[1]`, ""},
		{`{"a":`, ""},
	}
	for _, tt := range tests {
		s, e := Find([]byte(tt.body))
		if tt.want == "" {
			if s >= 0 {
				t.Errorf("%s: found [%d,%d)", tt.body, s, e)
			}
			continue
		}
		if got := string(Splice([]byte(tt.body), s, e, "NEW")); got != tt.want {
			t.Errorf("splice %s = %s, want %s", tt.body, got, tt.want)
		}
	}
}

func FuzzFind(f *testing.F) {
	f.Add([]byte(`{"requestId":"abc","businessType":1}`))
	f.Add([]byte(`{"x":[1,{"requestId":"y"}],"requestId":"z"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, e := Find(body)
		if s < 0 {
			return
		}
		if s > e || e > len(body) || body[s-1] != '"' || body[e] != '"' {
			t.Fatalf("span [%d,%d) of %q", s, e, body)
		}
	})
}

func TestIDsAreUUIDsAndDistinct(t *testing.T) {
	g := NewIDs(42)
	seen := map[string]bool{}
	for range 10000 {
		id := g.Next()
		if len(id) != 36 || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("bad or repeated id %s", id)
		}
		seen[id] = true
	}
	if a, b := NewIDs(42).Next(), NewIDs(42).Next(); a != b {
		t.Error("the same seed gives different ids")
	}
}

// TestFindAll: every top-level requestId string of a body that names it
// twice; Find's one of any other body.
func TestFindAll(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"requestId":"a"}`, []string{"a"}},
		{`{"requestId":"a","x":1,"requestId":"b"}`, []string{"a", "b"}},
		{`{"requestId":"a","requestId":2,"requestId":"c"}`, []string{"a", "c"}},
		{`{"requestId":"a","data":{"requestId":"b"}}`, []string{"a"}},
		{`{"requestId":"a","requestId":"b"} trailing`, []string{"a", "b"}},
		{`{"requestId":"a","requestId":"b",`, []string{"a"}}, // its members do not all read: Find's
		{`{"x":1}`, nil},
	} {
		var got []string
		for _, sp := range FindAll([]byte(tc.body)) {
			got = append(got, tc.body[sp[0]:sp[1]])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.body, got, tc.want)
		}
		if spans := FindAll([]byte(tc.body)); spans != nil {
			if out := string(SpliceAll([]byte(tc.body), spans, "Z")); strings.Count(out, `"Z"`) != len(spans) {
				t.Errorf("%s: SpliceAll %s", tc.body, out)
			}
		}
	}
}
