package load

import (
	"net/http"
	"os"

	"github.com/whsim/whsim/internal/attempt"
)

// envClient is attempt.NewClient as the CLI makes it: with
// WHSIM_TRANSPORT=net/http every call goes through net/http, so that CI
// runs these tests on both transports.
func envClient(o attempt.ClientOptions) (*http.Client, error) {
	o.NetHTTP = os.Getenv(attempt.TransportEnv) == attempt.TransportNetHTTP
	return attempt.NewClient(o)
}
