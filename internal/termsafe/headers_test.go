package termsafe

import (
	"net/http"
	"testing"
)

func TestMaskedHeaders(t *testing.T) {
	t.Parallel()
	h := http.Header{
		"Authorization":     {"Bearer s3cret-token"},
		"Webhook-Signature": {"v1,abcdef"},
		"X-Api-Key":         {"k-123"},
		"X-Erp-Token":       {"t-1"},
		"Content-Type":      {"application/json"},
		"X-Note":            {"hi\x1b[31m"},
	}
	got := map[string]string{}
	for _, kv := range Headers(h) {
		got[kv[0]] = kv[1]
	}
	want := map[string]string{
		"Authorization": "Bearer ****", "Webhook-Signature": "****", "X-Api-Key": "****", "X-Erp-Token": "****",
		"Content-Type": "application/json", "X-Note": `hi\x1b[31m`,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}
