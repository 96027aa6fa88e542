package recent

import "testing"

func TestMapForgetsFirstPut(t *testing.T) {
	type op struct {
		put     string // key put (value: its index in the table)
		prev    int    // the value Put must return
		had     bool
		holding []string // keys held afterwards
		gone    []string // keys forgotten afterwards
	}
	r := New[string, int](2)
	for i, o := range []op{
		{put: "a", holding: []string{"a"}},
		{put: "b", holding: []string{"a", "b"}},
		{put: "a", prev: 1, had: true, holding: []string{"a", "b"}}, // not made newer
		{put: "c", holding: []string{"b", "c"}, gone: []string{"a"}},
		{put: "d", holding: []string{"c", "d"}, gone: []string{"a", "b"}},
		{put: "c", prev: 4, had: true, holding: []string{"c", "d"}},
		{put: "a", holding: []string{"d", "a"}, gone: []string{"b", "c"}},
	} {
		prev, had := r.Put(o.put, i+1)
		if prev != o.prev || had != o.had {
			t.Fatalf("step %d: Put(%q) = %d, %v; want %d, %v", i, o.put, prev, had, o.prev, o.had)
		}
		for _, k := range o.holding {
			if _, ok := r.Get(k); !ok {
				t.Errorf("step %d: %q forgotten", i, k)
			}
		}
		for _, k := range o.gone {
			if _, ok := r.Get(k); ok {
				t.Errorf("step %d: %q still held", i, k)
			}
		}
		if r.Len() != len(o.holding) {
			t.Errorf("step %d: holds %d keys, want %d", i, r.Len(), len(o.holding))
		}
	}
}

func TestNewKeepsAtLeastOne(t *testing.T) {
	r := New[int, int](0)
	r.Put(1, 1)
	r.Put(2, 2)
	if _, ok := r.Get(2); !ok || r.Len() != 1 {
		t.Fatalf("len %d, newest held %v", r.Len(), ok)
	}
}
