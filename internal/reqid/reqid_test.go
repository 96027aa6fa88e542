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
	if a, b := For(7, "A", 3), For(7, "A", 3); a != b {
		t.Error("not reproducible")
	}
	if RandomSeed() == 0 {
		t.Error("RandomSeed gave 0, which means unseeded")
	}
}

func TestMix(t *testing.T) {
	t.Parallel()
	if Mix(42, 0) != 42 {
		t.Errorf("Mix(42, 0) = %d, want the seed itself", Mix(42, 0))
	}
	seen := map[uint64]bool{}
	for _, seed := range []uint64{1, 42} {
		for nonce := range uint64(1000) {
			m := Mix(seed, nonce+1)
			if seen[m] || m == seed {
				t.Fatalf("Mix(%d, %d) = %d repeats a seed", seed, nonce+1, m)
			}
			seen[m] = true
		}
	}
	if Nonce() == 0 {
		t.Error("Nonce gave 0, which means fixed ids")
	}
}

// IDs hands out For's ids of each event in turn, whatever the events
// between, the ids it makes ahead of time notwithstanding, and after Mix
// those of the mixed seed from where each event was.
func TestIDsFollowFor(t *testing.T) {
	const seed = 7
	g := NewIDs(seed)
	n := map[string]uint64{}
	events := []string{"A", "B", "A", "A", ""}
	for i := range 3 * idBatchLen {
		e := events[i%len(events)]
		if got, want := g.For(e), For(seed, e, n[e]); got != want {
			t.Fatalf("id %d of %q: %s, want %s", n[e], e, got, want)
		}
		n[e]++
	}
	g.Mix(99)
	mixed := Mix(seed, 99)
	for i := range 2 * idBatchLen {
		e := events[i%len(events)]
		if got, want := g.For(e), For(mixed, e, n[e]); got != want {
			t.Fatalf("after Mix, id %d of %q: %s, want %s", n[e], e, got, want)
		}
		n[e]++
	}
}

// Kept keeps a short id as it is, and a long one as a digest short enough
// to hold by the thousand that still tells ids apart and alike.
func TestKept(t *testing.T) {
	uuid := "3f2b8c1e-0000-4000-8000-000000000001"
	if got := Kept(uuid); got != uuid {
		t.Errorf("Kept(%q) = %q, want it as it is", uuid, got)
	}
	long := strings.Repeat("r", 1<<20)
	a, b := Kept(long+"a"), Kept(long+"b")
	if len(a) > maxKept || len(b) > maxKept {
		t.Errorf("Kept of a 1 MiB id is %d and %d bytes long, want at most %d", len(a), len(b), maxKept)
	}
	if a == b {
		t.Error("two long ids differing in their last byte are kept alike")
	}
	if Kept(long+"a") != a {
		t.Error("the same long id is kept differently twice")
	}
}
