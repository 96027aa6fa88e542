package deliver

import (
	"slices"
	"testing"
)

func TestSplitPayloads(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body  string
		want  []string
		lines []int
	}{
		{`{"a":1}`, []string{`{"a":1}`}, []int{0}},
		{"{\"a\":1}\n", []string{"{\"a\":1}\n"}, []int{0}},
		{"{\n  \"a\": 1\n}\n", []string{"{\n  \"a\": 1\n}\n"}, []int{0}},
		{"{\"a\":1}\r\n\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, []int{1, 3}},
		{"not json\n{}", []string{"not json\n{}"}, []int{0}},
	} {
		bodies, lines := SplitPayloads([]byte(tt.body))
		var got []string
		for _, b := range bodies {
			got = append(got, string(b))
		}
		if !slices.Equal(got, tt.want) || !slices.Equal(lines, tt.lines) {
			t.Errorf("SplitPayloads(%q) = %q %v, want %q %v", tt.body, got, lines, tt.want, tt.lines)
		}
	}
}
