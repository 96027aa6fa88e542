package sendout

import (
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// A delivery's JUnit case is named by its requestId; a re-delivery, whose
// requestId is its original's, says so (term's JUnit numbers any repeat
// of a name beyond it); one without a requestId by its sequence number.
func TestDeliveryJUnitName(t *testing.T) {
	for _, tt := range []struct {
		req  attempt.Request
		want string
	}{
		{attempt.Request{Event: "E", RequestID: "id-1", Seq: 1}, "id-1"},
		{attempt.Request{Event: "E", RequestID: "id-1", Seq: 7, Duplicate: true}, "id-1 (re-delivery)"},
		{attempt.Request{Event: "E", Seq: 3, NoRequestID: true}, "#3"},
		{attempt.Request{Event: "E", Seq: 4, Duplicate: true, NoRequestID: true}, "#4 (re-delivery)"},
		{attempt.Request{Event: "E", Seq: 5, Body: []byte(`{"requestId":""}`)}, `""`},
	} {
		res := &attempt.Result{Request: &tt.req, OK: true}
		if got := (*delivery)(res).JUnit().Name; got != tt.want {
			t.Errorf("%+v: name %q, want %q", tt.req, got, tt.want)
		}
	}
}
