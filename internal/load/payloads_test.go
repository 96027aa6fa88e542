package load

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
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
	if got := pe.Explain("f.ndjson"); !strings.HasPrefix(got, "f.ndjson:3: ") || !strings.HasSuffix(got, "; give --event") {
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

// A file's payloads are counted as a receiver keeps them: a payload that
// repeats an earlier one's call (its event and bytes) is a duplicate, a
// re-delivery; one of a document an earlier payload carried (its numbers:
// a void after the create, the same document under a new requestId) is no
// new document; a payload that names no document (no number, or an empty
// one) is none, marked NoDocument (it was counted a document of its own).
// A file read as a stream counts them so too.
func TestFilePayloadsCountedAsDocuments(t *testing.T) {
	t.Parallel()
	rec := func(id, bt, no string) Payload {
		return Payload{Body: []byte(`{"requestId":"` + id + `","businessType":` + bt + `,"data":{"收款单":{"收款单编号":"` + no + `"}}}`)}
	}
	const a, b, c, d = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
	none := Payload{Body: []byte(`{"requestId":"` + d + `","businessType":5007,"data":{}}`)}
	payloads := []Payload{
		rec(a, "5007", "SKD00000001"), // a document
		rec(a, "5007", "SKD00000001"), // its re-delivery
		rec(b, "5007", "SKD00000001"), // the same document under a new requestId
		rec(c, "5009", "SKD00000001"), // its void
		rec(b, "5007", "SKD00000002"), // another document (a requestId used before, under another number)
		none, none,                    // a body without numbers, and its re-delivery
		rec(c, "5007", ""), // an empty number: no document either
	}
	want := []string{"document", "duplicate", "", "", "document", "none", "duplicate", "none"}
	kind := func(r *attempt.Request) string {
		switch {
		case r.Document && (r.Duplicate || r.NoDocument):
			return "both"
		case r.NoDocument && !r.Duplicate:
			return "none"
		case r.Document:
			return "document"
		case r.Duplicate:
			return "duplicate"
		}
		return ""
	}
	lanes, err := FileLanes(payloads, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFeed(lanes, 1, 0, false, 1)
	var got []string
	for job := f.Next(); job != nil; job = f.Next() {
		got = append(got, kind(job[0]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("a file: %q, want %q", got, want)
	}
	rest := payloads[1:]
	s := NewStream(&payloads[0], func() (Payload, error) {
		if len(rest) == 0 {
			return Payload{}, io.EOF
		}
		p := rest[0]
		rest = rest[1:]
		return p, nil
	}, nil, nil)
	got = got[:0]
	for job := s.Next(); job != nil; job = s.Next() {
		got = append(got, kind(job[0]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("a stream: %q, want %q", got, want)
	}
}
