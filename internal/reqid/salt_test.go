package reqid

import "testing"

func TestSalted(t *testing.T) {
	t.Parallel()
	id := For(7, "CREATE_RECEIVABLE_DOC", 0)
	if got := Salted(id, 0); got != id {
		t.Errorf("Salted(id, 0) = %q, want the id itself", got)
	}
	a, b := Salted(id, 1), Salted(id, 2)
	if a == id || b == id || a == b {
		t.Errorf("salted ids %q %q of %q: want three distinct ids", a, b, id)
	}
	if Salted(id, 1) != a {
		t.Error("Salted is not a function of its inputs")
	}
	if other := Salted(For(7, "CREATE_RECEIVABLE_DOC", 1), 1); other == a {
		t.Error("two ids salted with one nonce collide")
	}
}
