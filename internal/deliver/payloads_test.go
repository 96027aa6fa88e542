package deliver

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/spec"
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

// Each payload goes under the event its number names, or under every given
// event; a payload whose event cannot be told is named by its line.
func TestFileLanes(t *testing.T) {
	t.Parallel()
	e := spec.Events()[0]
	one := fmt.Sprintf(`{"businessType":%d}`, e.Number)
	lanes, err := FileLanes([]byte(one+"\n"+one+"\n"), nil, http.Header{})
	if err != nil || len(lanes) != 2 || lanes[1][0][0].Event != e.Name || string(lanes[1][0][0].Body) != one {
		t.Fatalf("FileLanes = %v, %v", lanes, err)
	}
	all := spec.Events()
	if lanes, err = FileLanes([]byte(`{}`), all, nil); err != nil || len(lanes) != len(all) {
		t.Errorf("under every event: %d lanes, %v", len(lanes), err)
	}
	_, err = FileLanes([]byte(one+"\n\n{\"x\":1}\n"), nil, nil)
	var pe *PayloadError
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Fatalf("a body without a number: %v", err)
	}
	if got := pe.Explain("f.ndjson"); !strings.HasPrefix(got, "f.ndjson: line 3: ") || !strings.HasSuffix(got, "; give --event") {
		t.Errorf("Explain = %q", got)
	}
	_, err = FileLanes([]byte(`{"businessType":4000}`), nil, nil)
	if !errors.As(err, &pe) || pe.Line != 0 {
		t.Fatalf("an ambiguous number: %v", err)
	}
	if got := pe.Explain("f.json"); !strings.HasPrefix(got, "f.json: businessType 4000 ") || !strings.HasSuffix(got, "; say which with --event") {
		t.Errorf("Explain = %q", got)
	}
}
