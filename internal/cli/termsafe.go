package cli

import (
	"net/http"

	"github.com/whsim/whsim/internal/termsafe"
)

// termSafe prints text that came from the network terminal-safe (see
// package termsafe); keepNewlines leaves \n alone for multi-line output (a
// pretty-printed body).
func termSafe(s string, keepNewlines bool) string {
	if keepNewlines {
		return termsafe.Lines(s)
	}
	return termsafe.Text(s)
}

// maskedHeaders returns a copy of h with credential and signature values
// masked, for JSON reports.
func maskedHeaders(h http.Header) http.Header { return termsafe.MaskHeaders(h) }
