package capture

import (
	"context"
	"strings"
	"testing"
)

func TestCountRecords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"":                      0,
		"{}\n":                  1,
		"{}\n{}\n{}\n":          3,
		"{}\n{}\n{\"capture\":": 2, // a torn last line is no record
		"{}\n\n{}\n":            2, // nor is a blank one
	} {
		got, err := CountRecords(context.Background(), strings.NewReader(in))
		if err != nil || got != want {
			t.Errorf("CountRecords(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CountRecords(ctx, strings.NewReader(strings.Repeat("{}\n", 1<<20))); err == nil {
		t.Error("CountRecords ignores a cancelled context")
	}
}
