package reqid

import (
	"strings"
	"testing"
)

func TestForIsAUUIDAndDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, seed := range []uint64{1, 7} {
		for _, ev := range []string{"CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC", ""} {
			for n := range uint64(20000) {
				id := For(seed, ev, n)
				if len(id) != 36 || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) || strings.Count(id, "-") != 4 {
					t.Fatalf("%s is not a version 4 UUID", id)
				}
				key := ev + "/" + string(rune('0'+seed))
				if prev, ok := seen[id]; ok {
					t.Fatalf("%s given twice (%s and %s #%d)", id, prev, key, n)
				}
				seen[id] = key
			}
		}
	}
	if For(7, "A", 3) != For(7, "A", 3) {
		t.Error("not reproducible")
	}
	if RandomSeed() == 0 {
		t.Error("RandomSeed gave 0, which means unseeded")
	}
}
