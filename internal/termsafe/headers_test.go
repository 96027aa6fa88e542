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

// The names anonymize drops and the printers mask: one list.
func TestSecretHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		secret bool
	}{
		{"Authorization", true}, {"Proxy-Authorization", true}, {"Cookie", true}, {"Set-Cookie", true},
		{"Webhook-Signature", true}, {"X-Hub-Signature-256", true}, {"X-Api-Key", true}, {"X-API_KEY", true},
		{"X-Auth-Token", true}, {"X-Webhook-Secret", true}, {"X-Amz-Security-Token", true},
		{"X-Access-Key", true}, {"X-Session-Id", true}, {"X-Client-Credential", true},
		{"Content-Type", false}, {"Content-Length", false}, {"Webhook-Id", false}, {"Webhook-Timestamp", false},
		{"X-Request-Id", false}, {"User-Agent", false}, {"X-Forwarded-For", false},
		// keys in headers of their own names, and an HMAC signature (found
		// by hunt48: shown, saved and sent to a report's URL in the clear)
		{"X-Functions-Key", true}, {"Ocp-Apim-Subscription-Key", true}, {"X-App-Key", true},
		{"X-Master_Key", true}, {"X-Shopify-Hmac-Sha256", true},
		{"Idempotency-Key", false}, {"X-Idempotency-Key", false}, {"X-Keyword", false},
	} {
		if got := SecretHeader(tt.name); got != tt.secret {
			t.Errorf("SecretHeader(%q) = %v, want %v", tt.name, got, tt.secret)
		}
	}
}
