package fake

import (
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/taxid"
)

func TestGeneratedUSCCs(t *testing.T) {
	for seed := uint64(1); seed <= 10000; seed++ {
		s := New(seed).USCC()
		if len(s) != 18 || !strings.HasPrefix(s, "9") {
			t.Fatalf("seed %d: %q", seed, s)
		}
		for i := range len(s) {
			if strings.IndexByte(taxid.Alphabet, s[i]) < 0 {
				t.Fatalf("seed %d: %q has %q outside the alphabet", seed, s, s[i])
			}
		}
		if !taxid.ValidUSCC(s) {
			t.Fatalf("seed %d: %q fails the check characters", seed, s)
		}
	}
}

func BenchmarkUSCC(b *testing.B) {
	f := New(1)
	b.ReportAllocs()
	for b.Loop() {
		f.USCC()
	}
}
