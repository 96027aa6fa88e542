package cli

import (
	"net/http"
	"os"

	"github.com/whsim/whsim/internal/deliver"
)

// newClient builds a run's one HTTP client, trusting the CA certificates of
// the --cacert file caFile when it is set.
func newClient(caFile string, co deliver.ClientOptions) (*http.Client, error) {
	if caFile != "" {
		b, err := os.ReadFile(caFile)
		if err != nil {
			return nil, usagef("--cacert: %v", err)
		}
		co.CACert = b
	}
	client, err := deliver.NewClient(co)
	if err != nil {
		return nil, usagef("--cacert %s: %v", caFile, err)
	}
	return client, nil
}
