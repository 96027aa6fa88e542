package whsimtest_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/whsim/whsim/whsimtest"
)

// newRouter stands for the receiver's own handler.
func newRouter() http.Handler { return http.NotFoundHandler() }

// storeProbe stands for the receiver's probe: it asks the store what it
// holds for d (SELECT count(*), state, lines ... WHERE number = d.Code).
func storeProbe(ctx context.Context, d whsimtest.Document) (whsimtest.Stored, error) {
	return whsimtest.Stored{}, nil
}

// In the receiver's own test: the battery against its handler, in
// memory, each check a subtest (go test -run 'TestWebhooks/effects' runs
// one), effects judged by a probe reading the receiver's store.
func ExampleCheck() {
	_ = func(t *testing.T) { // func TestWebhooks(t *testing.T)
		whsimtest.Check(t, newRouter(),
			whsimtest.WithPath("/webhooks/erp"),
			whsimtest.WithSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
			whsimtest.WithProbe(storeProbe))
	}
}

// A receiver already listening, here over TLS with a test certificate:
// CheckURL sends the same battery over the network, trusting the server's
// certificate, and each failure carries the command that sends its call
// again (reproduce: curl ...).
func ExampleCheckURL() {
	_ = func(t *testing.T) { // func TestWebhooksOverTLS(t *testing.T)
		srv := httptest.NewTLSServer(newRouter())
		t.Cleanup(srv.Close)
		pool := x509.NewCertPool()
		pool.AddCert(srv.Certificate())
		whsimtest.CheckURL(t, srv.URL+"/webhooks/erp", whsimtest.WithRootCAs(pool), whsimtest.WithProbe(storeProbe))
	}
}

// A realistic, valid, signed call for a test of the team's own, handed to
// the handler directly.
func ExampleNewRequest() {
	_ = func(t *testing.T) { // func TestVoidOfUnknownReceipt(t *testing.T)
		req := whsimtest.NewRequest(t, whsimtest.Call{Event: "ABANDON_RECEIVABLE_DOC", Set: []string{"data.收款单.收款单编号=SKD-404"}})
		w := httptest.NewRecorder()
		newRouter().ServeHTTP(w, req)
	}
	// The same without a test, errors returned.
	req, err := whsimtest.Call{Event: "CREATE_PURCHASE_ORDER_INVOICE", Shape: "sample", Path: "/webhooks/erp?tenant=7",
		Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}.Request()
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(req.Body)
	fmt.Println(req.Method, req.URL)
	fmt.Println(req.Header.Get("Content-Type"), req.Header.Get("Webhook-Id") != "", req.Header.Get("Webhook-Signature")[:3])
	// Seed 1's document, as whsim generate --seed 1 prints it.
	head, _, _ := strings.Cut(string(body), `,"data"`)
	fmt.Println(head)
	// Output:
	// POST /webhooks/erp?tenant=7&businessType=CREATE_PURCHASE_ORDER_INVOICE
	// application/json true v1,
	// {"requestId":"ad934416-ec01-41ce-bc2a-da4c1ecfcfb4","businessType":4000
}
