package load

import (
	"errors"
	"io"
	"testing"

	"github.com/whsim/whsim/internal/attempt"

	"github.com/whsim/whsim/internal/spec"
)

func TestStreamSendsAsFileLanesWould(t *testing.T) {
	one := []byte(`{"requestId":"11111111-1111-4111-8111-111111111111","businessType":5007,"data":{}}`)
	two := []byte(`{"requestId":"22222222-2222-4222-8222-222222222222","businessType":5007,"data":{}}`)
	events, err := spec.ParseEvents([]string{"CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		payloads []Payload
		events   []spec.Event
		tail     error // what more returns after the payloads
		want     []string
		wantErr  string // "" for none
	}{
		{"each payload's own event", []Payload{{Body: one, Where: "line 1"}, {Body: two, Where: "line 2"}}, nil, io.EOF,
			[]string{"CREATE_RECEIVABLE_DOC 1111", "CREATE_RECEIVABLE_DOC 2222"}, ""},
		{"--event's, each payload under each", []Payload{{Body: one}, {Body: two}}, events, io.EOF,
			[]string{"CREATE_RECEIVABLE_DOC 1111", "ABANDON_RECEIVABLE_DOC 1111", "CREATE_RECEIVABLE_DOC 2222", "ABANDON_RECEIVABLE_DOC 2222"}, ""},
		{"a payload whose event cannot be told ends it", []Payload{{Body: one, Where: "line 1"}, {Body: []byte(`{"data":{}}`), Where: "line 2"}}, nil, io.EOF,
			[]string{"CREATE_RECEIVABLE_DOC 1111"}, "no businessType number in the body to tell the event by"},
		{"a read error ends it", []Payload{{Body: one}}, nil, errors.New("line 2: not JSON"),
			[]string{"CREATE_RECEIVABLE_DOC 1111"}, "line 2: not JSON"},
		{"nothing after the first", nil, nil, io.EOF, []string{"CREATE_RECEIVABLE_DOC 1111"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := Payload{Body: one}
			rest := tc.payloads
			if len(rest) > 0 {
				first, rest = rest[0], rest[1:]
			}
			more := func() (Payload, error) {
				if len(rest) == 0 {
					return Payload{}, tc.tail
				}
				p := rest[0]
				rest = rest[1:]
				return p, nil
			}
			// What a feed of one round over the payloads read first
			// makes, as far as they go.
			var feedNext func() []*attempt.Request
			if lanes, err := FileLanes(append([]Payload{first}, rest...), tc.events, nil); err == nil {
				feedNext = NewFeed(lanes, 1, 0, false, 1).Next
			}
			s := NewStream(&first, more, tc.events, nil)
			var got []string
			for job := s.Next(); job != nil; job = s.Next() {
				if len(job) != 1 {
					t.Fatalf("a job of %d deliveries, want 1", len(job))
				}
				r := job[0]
				if feedNext != nil {
					f := feedNext()[0]
					if f.Event != r.Event || f.Query != r.Query || f.RequestID != r.RequestID || string(f.Body) != string(r.Body) ||
						f.Seq != r.Seq || f.Document != r.Document || f.NoDocument != r.NoDocument || f.Duplicate != r.Duplicate {
						t.Errorf("delivery %d: %+v, a feed's %+v", len(got)+1, *r, *f)
					}
				}
				got = append(got, r.Event+" "+r.RequestID[:4])
				// The bodies name no document: none, said apart.
				if r.Seq != len(got) || r.Document || !r.NoDocument || r.Duplicate {
					t.Errorf("delivery %d: Seq %d, Document %v, NoDocument %v, Duplicate %v; want Seq %d, no document, no duplicate", len(got), r.Seq, r.Document, r.NoDocument, r.Duplicate, len(got))
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("deliveries %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("deliveries %q, want %q", got, tc.want)
				}
			}
			switch err := s.Err(); {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Err = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Fatalf("Err = %v, want %q", err, tc.wantErr)
			}
			if s.Next() != nil {
				t.Fatal("Next after the end returned a delivery")
			}
		})
	}
}
