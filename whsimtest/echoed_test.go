package whsimtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

// A receiver that echoes its request in its answer (an error page that
// quotes it) has CheckURL's failures show the answer with the run's
// credentials masked, as whsim check does: WithHeader's value, the URL's
// query token and the signatures WithSecret makes, never in clear in a
// go test log CI keeps.
func TestCheckURLMasksEchoedCredentials(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Echoed", r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "refused %s; signature %s; url %s; %s", r.Header.Get("Authorization"),
			r.Header.Get("Webhook-Signature"), r.URL.RequestURI(), body)
	}))
	defer srv.Close()
	r := record("TestShop", func(t tb) {
		checkURL(t, srv.URL+"/hooks?token=q-t0ken-77", []Option{WithChecks("accepts-valid"),
			WithHeader("Authorization", "Bearer s3cr3t-token"), WithSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")})
	})
	said := r.said()
	if ok, _ := regexp.MatchString(`\[answered 401 Unauthorized: refused Bearer \*\*\*\*; signature \*\*\*\*; url /hooks\?token=\*\*\*\*&businessType=`, said); !ok {
		t.Errorf("no masked answer in what it said:\n%s", said)
	}
	// The curl commands carry the request's signatures (a rerun signs
	// afresh): "signature v1," would be the answer's.
	if leak := regexp.MustCompile(`s3cr3t-token|q-t0ken-77|signature v1,`).FindString(said); leak != "" {
		t.Errorf("it said %q:\n%s", leak, said)
	}
}
