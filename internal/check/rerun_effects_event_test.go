package check

import (
	"strconv"
	"strings"
	"testing"
)

// A report read back is untrusted: an effects call whose query names
// another event than its "event" (a line edited) was sent by its query
// while the rerun said and probed by its event, and read FIXED or STILL
// FAILING by the rules of a call it never sent. Refused at the query's
// line and column, as a request whose query is not its url's end is
// (found by ck47). A call whose query names its event is read.
func TestReadFailedRefusesAnEffectsCallWhoseQueryIsAnotherEvent(t *testing.T) {
	t.Parallel()
	line := func(event, query string) string {
		return `{"check":"effects","case":"lifecycle/ABANDON_RECEIVABLE_DOC/after-create","verdict":"fail","effects":{"kind":"receipt","code":"SKD-8261FQ-0463","calls":[` +
			`{"event":"CREATE_RECEIVABLE_DOC","query":"businessType=CREATE_RECEIVABLE_DOC","copies":1,"body":"{}","bodyEncoding":"utf8"},` +
			`{"event":"` + event + `","query":"` + query + `","copies":1,"body":"{}","bodyEncoding":"utf8"}]}}` + "\n"
	}
	ok := line("ABANDON_RECEIVABLE_DOC", "businessType=ABANDON_RECEIVABLE_DOC")
	if _, err := ReadFailed(strings.NewReader(ok)); err != nil {
		t.Fatalf("a line as a run writes it: %v", err)
	}
	edited := line("ABANDON_RECEIVABLE_DOC", "businessType=CREATE_RECEIVABLE_DOC")
	col := strings.LastIndex(edited, `"businessType=CREATE_RECEIVABLE_DOC"`) + 1
	_, err := ReadFailed(strings.NewReader(edited))
	want := "line 1, column " + strconv.Itoa(col) + `: effects lifecycle/ABANDON_RECEIVABLE_DOC/after-create: effects call 2: query "businessType=CREATE_RECEIVABLE_DOC" names event CREATE_RECEIVABLE_DOC, but the call's event is ABANDON_RECEIVABLE_DOC: a run writes the event it sends in both, so which to send is unknown`
	if err == nil || err.Error() != want {
		t.Errorf("edited: %v\nwant %s", err, want)
	}
	for _, tt := range []struct{ name, event, query string }{
		{"no event in the query", "ABANDON_RECEIVABLE_DOC", "tenant=a"},
		{"the event twice", "ABANDON_RECEIVABLE_DOC", "businessType=ABANDON_RECEIVABLE_DOC&businessType=CREATE_RECEIVABLE_DOC"},
		{"no event", "", "businessType=ABANDON_RECEIVABLE_DOC"},
	} {
		if _, err := ReadFailed(strings.NewReader(line(tt.event, tt.query))); err == nil || !strings.Contains(err.Error(), "effects call 2: ") {
			t.Errorf("%s: %v, want the call refused", tt.name, err)
		}
	}
}
