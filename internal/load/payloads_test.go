package load

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

// Each payload goes under the event its number names, or under every given
// event; a payload whose event cannot be told is named by its line.
func TestFileLanes(t *testing.T) {
	t.Parallel()
	e := spec.Events()[0]
	one := fmt.Sprintf(`{"businessType":%d}`, e.Number)
	lanes, err := FileLanes([]Payload{{Body: []byte(one)}, {Body: []byte(one)}}, nil, http.Header{})
	if err != nil || len(lanes) != 2 || lanes[1][0][0].Event != e.Name || string(lanes[1][0][0].Body) != one {
		t.Fatalf("FileLanes = %v, %v", lanes, err)
	}
	all := spec.Events()
	if lanes, err = FileLanes([]Payload{{Body: []byte(`{}`)}}, all, nil); err != nil || len(lanes) != len(all) {
		t.Errorf("under every event: %d lanes, %v", len(lanes), err)
	}
	_, err = FileLanes([]Payload{{Body: []byte(one), Where: "line 1"}, {Body: []byte(`{"x":1}`), Where: "line 3"}}, nil, nil)
	var pe *PayloadError
	if !errors.As(err, &pe) || pe.Where != "line 3" {
		t.Fatalf("a body without a number: %v", err)
	}
	if got := pe.Explain("f.ndjson"); !strings.HasPrefix(got, "f.ndjson: line 3: ") || !strings.HasSuffix(got, "; give --event") {
		t.Errorf("Explain = %q", got)
	}
	_, err = FileLanes([]Payload{{Body: []byte(`{"businessType":4000}`)}}, nil, nil)
	if !errors.As(err, &pe) || pe.Where != "" {
		t.Fatalf("an ambiguous number: %v", err)
	}
	if got := pe.Explain("f.json"); !strings.HasPrefix(got, "f.json: businessType 4000 ") || !strings.HasSuffix(got, "; say which with --event") {
		t.Errorf("Explain = %q", got)
	}
}
