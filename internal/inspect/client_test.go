package inspect

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/validate"
)

// loadFile is LoadFile for the tests that only need the store: the one
// place that calls it with its arguments.
func loadFile(t *testing.T, path string, window int, check func(*capture.Record) []validate.Finding) *Store {
	t.Helper()
	s, _, err := LoadFile(context.Background(), path, nil, window, check)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testToken is the session token of the test servers.
const testToken = "test-token"

// doAPI sends req with the session's token, as curl is told to in the README.
func doAPI(req *http.Request) (*http.Response, error) {
	req.Header.Set("Authorization", "Bearer "+testToken)
	return http.DefaultClient.Do(req)
}

func apiGet(url string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	return doAPI(req)
}

func apiPost(url, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	return doAPI(req)
}
