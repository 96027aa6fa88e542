package inspect

import (
	"io"
	"net/http"
)

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
