package receiver

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// listen's --path matches as net/http's ServeMux matches a pattern, each
// segment unescaped: "/a%2Fb" was taken for --path /a/b (answered 200),
// though it is another resource to ServeMux, Express and Spring. Each
// case is checked against a ServeMux with the same pattern.
func TestPathMatchesAsServeMux(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, target string
		on           bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a%2Fb", false},
		{"/a/b", "/a%2fb", false},
		{"/a/b", "/%61/b", true},
		{"/A", "/%41", true},
		{"/a%2Fb", "/a%2Fb", true},
		{"/a%2Fb", "/a%2fb", true},
		{"/a%2Fb", "/a/b", false},
		{"/a b", "/a%20b", true},
		{"/a%20b", "/a%20b", true},
		{"/hooks/钩", "/hooks/%E9%92%A9", true},
		{"/a/b", "/a/b/", false},
		{"/a/b", "/a/b%2F", false},
		{"/a/b", "/a", false},
		{"/p;v=1", "/p;v=1", true},
		{"/p;v=1", "/p%3Bv=1", true},
	} {
		req := httptest.NewRequest(http.MethodPost, "http://x"+tc.target, nil)
		if got := newPathMatch(tc.path).on(req.URL.Path, req.URL.RawPath); got != tc.on {
			t.Errorf("--path %q, a call to %q: on %v, want %v", tc.path, tc.target, got, tc.on)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("POST "+tc.path, func(http.ResponseWriter, *http.Request) {})
		_, pattern := mux.Handler(req)
		if mux := pattern != ""; mux != tc.on {
			t.Errorf("--path %q, a call to %q: ServeMux matches %v, the case says %v", tc.path, tc.target, mux, tc.on)
		}
	}
	if !newPathMatch("").on("/anything", "/any%2Fthing") {
		t.Error("no --path: a call to any path is on it")
	}
}
