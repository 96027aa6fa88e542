package load

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestEventOf(t *testing.T) {
	t.Parallel()
	if e, err := eventOf([]byte(`{"businessType":5007}`)); err != nil || e.Name != "CREATE_RECEIVABLE_DOC" {
		t.Errorf("5007: %v %v", e.Name, err)
	}
	for body, want := range map[string]string{
		`{"data":{}}`:           "no businessType number in the body to tell the event by",
		`not json`:              "no businessType number in the body to tell the event by",
		`{"businessType":1}`:    "businessType 1 is no event's number",
		`{"businessType":4000}`: "businessType 4000 stands for CREATE_PURCHASE_ORDER_INVOICE or AUDIT_PURCHASE_ORDER_INVOICE",
	} {
		_, err := eventOf([]byte(body))
		var amb *ambiguousEventError
		if err == nil || err.Error() != want || errors.As(err, &amb) != (len(body) == 21) {
			t.Errorf("EventOf(%s) error %v, want %s", body, err, want)
		}
	}
}

// TestEventOfNumberTwice: a body that names businessType twice with two
// numbers is no one event's: receivers differ on which they read (Go's
// encoding/json the last, most others the first), so it is refused (give
// --event), not sent under the first. The same number twice is one event.
func TestEventOfNumberTwice(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"businessType":5007,"data":{},"businessType":4010}`,
		`{"businessType":5007,"b\u0075sinessType":5009}`,
		`{"businessType":5007,"businessType":"5009"}`,
	} {
		_, err := eventOf([]byte(body))
		if err == nil || !strings.Contains(err.Error(), "businessType twice in the body") {
			t.Errorf("%s: error %v, want businessType twice", body, err)
		}
	}
	if e, err := eventOf([]byte(`{"businessType":5007,"businessType":5007}`)); err != nil || e.Name != "CREATE_RECEIVABLE_DOC" {
		t.Errorf("the same number twice: %v %v", e.Name, err)
	}
}

func TestNewTemplate(t *testing.T) {
	t.Parallel()
	body := []byte(`{"requestId":"f87bc202-fd3b-4820-b674-098c23326449","businessType":5007}`)
	h := http.Header{"X-A": {"1"}}
	tm := newTemplate("CREATE_RECEIVABLE_DOC", h, body, true, nil)
	if tm.IDOff != 14 || tm.RequestID != "f87bc202-fd3b-4820-b674-098c23326449" || tm.Query != "businessType=CREATE_RECEIVABLE_DOC" {
		t.Errorf("template %+v", tm)
	}
	if tm := newTemplate("A B", h, body, false, nil); tm.IDOff != -1 || tm.Query != "businessType=A+B" {
		t.Errorf("fixed id template %+v", tm)
	}
	if tm := newTemplate("X", h, []byte(`{"requestId":"short"}`), true, nil); tm.IDOff != -1 || tm.RequestID != "short" {
		t.Errorf("short id template %+v", tm)
	}
}
