package checkcmd_test

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/cli/clitest"
)

// TestCheckTLSAndHeaders: check reaches a receiver over TLS as send does
// (--insecure, --cacert), with the -H headers on every call, and a
// certificate it cannot trust is one line and exit 2.
func TestCheckTLSAndHeaders(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0k3n" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"check", "--url", srv.URL + "/hook", "--checks", "accepts-valid", "--seed", "3"}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"untrusted", nil, 2, "", "whsim: cannot reach " + srv.URL + "/hook: tls: "},
		{"insecure", []string{"-k", "-H", "Authorization: Bearer t0k3n"}, 0, "ok every check passed", "--insecure: the receiver's TLS certificate is not verified"},
		{"cacert", []string{"--cacert", ca, "-H", "Authorization: Bearer t0k3n"}, 0, "ok every check passed", ""},
		{"no header", []string{"--cacert", ca}, 1, "FAIL accepts-valid CREATE_PURCHASE_ORDER_INVOICE/described: got 401, want 2xx", ""},
		{"bad header", []string{"--cacert", ca, "-H", "no colon"}, 2, "", "whsim check: --header "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := clitest.Run(t, append(append([]string{}, base...), tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) || tt.stdout == "" && stdout != "" {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want %q", stderr, tt.stderr)
			}
		})
	}
}
