package receiver

import (
	"strconv"
	"strings"
	"testing"
)

func TestForwarded(t *testing.T) {
	type call struct {
		id      string
		invalid bool
		status  int
		want    string // the flagged checks, comma-separated
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"valid accepted", []call{{"a", false, 200, ""}}},
		{"invalid refused", []call{{"a", true, 400, ""}}},
		{"invalid accepted", []call{{"a", true, 202, RejectsMalformed}}},
		{"invalid without id accepted", []call{{"", true, 200, RejectsMalformed}}},
		{"re-delivery accepted", []call{{"a", false, 200, ""}, {"a", false, 200, ""}}},
		{"re-delivery refused", []call{{"a", false, 200, ""}, {"a", false, 409, Duplicates}}},
		{"re-delivery after a 500 refused again", []call{{"a", false, 500, ""}, {"a", false, 500, Duplicates}}},
		{"re-delivery of an invalid call refused", []call{{"a", true, 400, ""}, {"a", true, 400, ""}}},
		{"re-delivery with no answer", []call{{"a", false, 200, ""}, {"a", false, 0, ""}}},
		{"other ids", []call{{"a", false, 200, ""}, {"b", false, 409, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewForwarded()
			for i, c := range tt.calls {
				var got []string
				for _, fl := range f.Judge(c.id, c.invalid, c.status) {
					if fl.Reason == "" {
						t.Errorf("call %d: flag %s has no reason", i+1, fl.Check)
					}
					got = append(got, fl.Check)
				}
				if strings.Join(got, ",") != c.want {
					t.Errorf("call %d: flags %v, want %q", i+1, got, c.want)
				}
			}
		})
	}
}

// TestForwardedForgetsOldest: memory stays bounded on a long listen.
func TestForwardedForgetsOldest(t *testing.T) {
	f := NewForwarded()
	for i := range maxRemembered + 1 {
		f.Judge(strconv.Itoa(i), false, 200)
	}
	if f.seen.Len() != maxRemembered {
		t.Fatalf("remembers %d ids, want %d", f.seen.Len(), maxRemembered)
	}
	if flags := f.Judge("0", false, 409); len(flags) != 0 {
		t.Errorf("the oldest id is still remembered: %v", flags)
	}
	if flags := f.Judge("2", false, 409); len(flags) != 1 {
		t.Errorf("a recent id is forgotten: %v", flags)
	}
}
