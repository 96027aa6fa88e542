package load

import (
	"net/http"
	"os"

	"github.com/whsim/whsim/internal/attempt"
)

// envClient is attempt.NewClient as the CLI makes it: with
// WHSIM_TRANSPORT=net/http every call goes through net/http, and with
// goroutines a run's calls are made by a goroutine per connection instead
// of event loops, so that CI runs these tests every way.
func envClient(o attempt.ClientOptions) (*http.Client, error) {
	o.NetHTTP = os.Getenv(attempt.TransportEnv) == attempt.TransportNetHTTP
	o.Goroutines = os.Getenv(attempt.TransportEnv) == attempt.TransportGoroutines
	return attempt.NewClient(o)
}
