package validate

import (
	"fmt"
	"testing"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

// TestGeneratedPayloadsAreClean: every payload the generator makes (all
// events, both shapes, many seeds) and every fixture validates with no
// finding at all, with the event asserted and without, in auto mode and
// under its own shape.
func TestGeneratedPayloadsAreClean(t *testing.T) {
	t.Parallel()
	seeds := 300
	if testing.Short() {
		seeds = 30
	}
	validators := map[string]*Validator{"auto": mustNew(t, Options{Strict: true})}
	for _, s := range spec.Shapes() {
		validators[string(s)] = mustNew(t, Options{Shape: string(s), Strict: true})
	}
	check := func(name string, body []byte, e spec.Event, s spec.Shape) {
		t.Helper()
		for _, vname := range []string{"auto", string(s)} {
			for _, ev := range []string{"", e.Name} {
				if fs := validators[vname].Check(body, ev); len(fs) > 0 {
					t.Errorf("%s (validator %s, event %q): %d findings:\n%s%s", name, vname, ev, len(fs), dump(fs), body)
					return
				}
			}
		}
	}
	for _, s := range spec.Shapes() {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			src := payload.NewSource(seed, payload.Anchor(), s, nil)
			for _, e := range spec.Events() {
				doc, err := src.Next(e)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("seed %d %s %s", seed, e.Name, s), payload.Marshal(doc), e, s)
				check(fmt.Sprintf("seed %d %s %s (indented)", seed, e.Name, s), payload.MarshalIndent(doc), e, s)
			}
		}
		for _, e := range spec.Events() {
			b, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			check(fixtures.Name(e.Name, s), b, e, s)
		}
	}
}
