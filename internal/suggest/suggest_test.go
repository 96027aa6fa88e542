package suggest

import "testing"

func TestClosest(t *testing.T) {
	events := []string{"CREATE_PURCHASE_ORDER_INVOICE", "AUDIT_PURCHASE_ORDER_INVOICE", "CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"}
	flags := []string{"count", "event", "seed", "shape", "url", "secret", "set", "unset"}
	tests := []struct {
		word  string
		cands []string
		want  string
		ok    bool
	}{
		{"CREATE_RECIEVABLE_DOC", events, "CREATE_RECEIVABLE_DOC", true},
		{"create_receivable_doc", events, "CREATE_RECEIVABLE_DOC", true},
		{"ABANDON", events, "ABANDON_RECEIVABLE_DOC", true},
		{"DELETE_EVERYTHING", events, "", false},
		{"urll", flags, "url", true},
		{"coutn", flags, "count", true},
		{"coun", flags, "count", true},
		{"sed", flags, "seed", true}, // as near to set: the first in order wins
		{"x", flags, "", false},
		{"", flags, "", false},
		{"verbose", flags, "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.word, tt.cands)
		if got != tt.want && tt.ok || ok != tt.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
	if h := Hint("urll", flags); h != ` (did you mean "url"?)` {
		t.Errorf("Hint = %q", h)
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"收款单", "收款明细", 2}, {"url", "urll", 1}, {"coutn", "count", 1}, {"ab", "ba", 1}} {
		if d := distance(tt.a, tt.b); d != tt.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}
