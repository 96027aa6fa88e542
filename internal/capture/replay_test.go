package capture

import (
	"net/http"
	"reflect"
	"testing"
)

func TestReplayHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   http.Header
		want http.Header
	}{
		{"nil", nil, http.Header{}},
		{"canonical connection headers dropped", http.Header{
			"Host": {"a"}, "Content-Length": {"2"}, "Transfer-Encoding": {"chunked"}, "Connection": {"close"},
			"Keep-Alive": {"x"}, "Te": {"trailers"}, "Trailer": {"X"}, "Upgrade": {"h2c"}, "Proxy-Connection": {"x"},
			"Proxy-Authorization": {"Basic x"}, "Accept-Encoding": {"gzip"}, "Content-Type": {"application/json"},
		}, http.Header{"Content-Type": {"application/json"}}},
		{"any case dropped, the rest canonical", http.Header{
			"host": {"a"}, "content-length": {"2"}, "TRANSFER-ENCODING": {"chunked"}, "connection": {"close"},
			"proxy-authorization": {"Basic x"}, "x-erp-signature": {"s"}, "content-type": {"text/plain"},
		}, http.Header{"X-Erp-Signature": {"s"}, "Content-Type": {"text/plain"}}},
		{"same name in two cases merged", http.Header{"X-A": {"1"}, "x-a": {"2"}}, http.Header{"X-A": {"1", "2"}}},
		{"authorization kept", http.Header{"Authorization": {"Bearer t"}}, http.Header{"Authorization": {"Bearer t"}}},
		{"headers the Connection header names dropped, in any case", http.Header{
			"connection": {"keep-alive, x-trace", " X-Hop "}, "X-Trace": {"t"}, "x-hop": {"h"}, "X-Kept": {"k"},
		}, http.Header{"X-Kept": {"k"}}},
	}
	for _, tt := range tests {
		got := ReplayHeaders(tt.in)
		if tt.name == "same name in two cases merged" && len(got["X-A"]) == 2 {
			// Map order decides which comes first.
			got["X-A"] = []string{min(got["X-A"][0], got["X-A"][1]), max(got["X-A"][0], got["X-A"][1])}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	in := http.Header{"X-A": {"1"}}
	ReplayHeaders(in)["X-A"][0] = "changed"
	if in["X-A"][0] != "1" {
		t.Error("ReplayHeaders shares its values with the record")
	}
}
