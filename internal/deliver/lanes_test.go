package deliver

import (
	"net/http"
	"testing"

	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

func TestPool(t *testing.T) {
	t.Parallel()
	for count, want := range map[int]int{0: PoolSize, 1: 1, 255: 255, PoolSize: PoolSize, 5000: PoolSize} {
		if got := Pool(count); got != want {
			t.Errorf("Pool(%d) = %d, want %d", count, got, want)
		}
	}
}

// A round takes one group from every lane: a delivery per event, or a
// document's whole life.
func TestPerRound(t *testing.T) {
	t.Parallel()
	one := []Template{{}}
	life := []Template{{}, {}, {}}
	for _, tt := range []struct {
		name  string
		lanes [][][]Template
		want  int
	}{
		{"an event", [][][]Template{{one, one}}, 1},
		{"four events", [][][]Template{{one}, {one}, {one, one}, {one}}, 4},
		{"a scenario", [][][]Template{{life, life}}, 3},
	} {
		if got := PerRound(tt.lanes); got != tt.want {
			t.Errorf("%s: PerRound = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// Generated requestIds are replaced per delivery; one the user set or
// removed is sent as it is.
func TestEventLanes(t *testing.T) {
	t.Parallel()
	events, _ := spec.ParseEvents([]string{spec.AllEvents})
	set, _ := payload.ParseSet("requestId=mine")
	for _, tt := range []struct {
		ovs   []payload.Override
		fresh bool
	}{{nil, true}, {[]payload.Override{set}, false}} {
		src := payload.NewSource(7, payload.Anchor(), spec.Described, tt.ovs)
		lanes, err := EventLanes(events, 3, http.Header{}, tt.ovs, src.Next)
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
			if tpl.Event != events[i].Name || (tpl.IDOff >= 0) != tt.fresh {
				t.Errorf("overrides %v: lane %d: event %s, fresh ids %v", tt.ovs, i, tpl.Event, tpl.IDOff >= 0)
			}
		}
	}
}
