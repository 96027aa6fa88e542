package load

import (
	"net/http"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

func TestPool(t *testing.T) {
	t.Parallel()
	for count, want := range map[int]int{0: poolSize, 1: 1, 255: 255, poolSize: poolSize, 5000: poolSize} {
		if got := Pool(count); got != want {
			t.Errorf("Pool(%d) = %d, want %d", count, got, want)
		}
	}
}

// A round takes one group from every lane: a delivery per event, or a
// document's whole life.
func TestPerRound(t *testing.T) {
	t.Parallel()
	one := []attempt.Template{{}}
	life := []attempt.Template{{}, {}, {}}
	for _, tt := range []struct {
		name  string
		lanes [][][]attempt.Template
		want  int
	}{
		{"an event", [][][]attempt.Template{{one, one}}, 1},
		{"four events", [][][]attempt.Template{{one}, {one}, {one, one}, {one}}, 4},
		{"a scenario", [][][]attempt.Template{{life, life}}, 3},
	} {
		if got := PerRound(tt.lanes); got != tt.want {
			t.Errorf("%s: PerRound = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// Generated requestIds are replaced per delivery; one the user set or
// removed (fresh false) is sent as it is.
func TestEventLanes(t *testing.T) {
	t.Parallel()
	events, _ := spec.ParseEvents([]string{spec.AllEvents})
	for _, fresh := range []bool{true, false} {
		src := payload.NewSource(7, payload.Anchor(), spec.Described, nil)
		next := func(e spec.Event) ([]byte, error) {
			doc, err := src.Next(e)
			return payload.Marshal(doc), err
		}
		lanes, err := EventLanes(events, 3, http.Header{}, fresh, nil, next)
		if err != nil {
			t.Fatal(err)
		}
		if len(lanes) != len(events) {
			t.Fatalf("%d lanes for %d events", len(lanes), len(events))
		}
		for i, lane := range lanes {
			if len(lane) != 3 {
				t.Fatalf("lane %d: %d bodies, want 3", i, len(lane))
			}
			tpl := lane[0][0]
			if tpl.Event != events[i].Name || (tpl.IDOff >= 0) != fresh {
				t.Errorf("fresh %v: lane %d: event %s, fresh ids %v", fresh, i, tpl.Event, tpl.IDOff >= 0)
			}
		}
	}
}
