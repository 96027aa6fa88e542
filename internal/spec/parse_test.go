package spec

import (
	"strings"
	"testing"
)

// Event names a user types are matched without regard to case, and an
// unknown one gets a suggestion.
func TestParseEventsForgiving(t *testing.T) {
	got, err := ParseEvents([]string{"create_receivable_doc", "Abandon_Receivable_Doc"})
	if err != nil || len(got) != 2 || got[0].Name != "CREATE_RECEIVABLE_DOC" || got[1].Name != "ABANDON_RECEIVABLE_DOC" {
		t.Fatalf("ParseEvents = %v, %v", got, err)
	}
	if all, err := ParseEvents([]string{"ALL"}); err != nil || len(all) != len(Events()) {
		t.Fatalf("ParseEvents(ALL) = %v, %v", all, err)
	}
	_, err = ParseEvents([]string{"CREATE_RECIEVABLE_DOC"})
	if err == nil || !strings.Contains(err.Error(), `unknown event "CREATE_RECIEVABLE_DOC" (did you mean "CREATE_RECEIVABLE_DOC"?)`) {
		t.Fatalf("err = %v", err)
	}
	// The events a sender names in its query stay exact.
	if _, ok := Lookup("create_receivable_doc"); ok {
		t.Fatal("Lookup matched a query name in another case")
	}
}
