package sign

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Standard Webhooks asks for 24 to 64 bytes of key: under 16 is refused,
// 16 to 23 works but is weak.
func TestSignerKeyLength(t *testing.T) {
	for _, tt := range []struct {
		n       int
		wantErr bool
		weak    bool
	}{{1, true, false}, {15, true, false}, {16, false, true}, {23, false, true}, {24, false, false}, {64, false, false}} {
		secret := SecretPrefix + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", tt.n)))
		s, err := NewSigner(secret)
		if (err != nil) != tt.wantErr {
			t.Errorf("%d bytes: err %v, want error %v", tt.n, err, tt.wantErr)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "16 bytes") || strings.Contains(err.Error(), secret[6:]) {
				t.Errorf("%d bytes: error %q should say the minimum and not quote the secret", tt.n, err)
			}
			continue
		}
		if s.Weak() != tt.weak {
			t.Errorf("%d bytes: Weak() = %v, want %v", tt.n, s.Weak(), tt.weak)
		}
	}
}
