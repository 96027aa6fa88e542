package capture

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/spec"
)

func TestRequestFromRecord(t *testing.T) {
	t.Parallel()
	rec := &Record{Method: "put", Query: "businessType=CREATE_RECEIVABLE_DOC&x=1", Headers: http.Header{
		"Host": {"h"}, "Content-Length": {"9"}, "Connection": {"close"}, "Accept-Encoding": {"gzip"},
		"X-Trace": {"t1"},
	}}
	rec.SetBody([]byte(`{"requestId":"11111111-1111-4111-8111-111111111111","data":{}}`))
	req, err := Request(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "PUT" || req.Event != "CREATE_RECEIVABLE_DOC" || req.Query != rec.Query ||
		req.RequestID != "11111111-1111-4111-8111-111111111111" || string(req.Body) != `{"requestId":"11111111-1111-4111-8111-111111111111","data":{}}` {
		t.Errorf("request %+v", req)
	}
	want := http.Header{"X-Trace": {"t1"}, "Content-Type": nil}
	if fmt.Sprint(req.Header) != fmt.Sprint(want) {
		t.Errorf("header %v, want %v", req.Header, want)
	}
	fresh, err := Request(rec, deliver.NewIDs(3))
	if err != nil || fresh.RequestID == req.RequestID || len(fresh.RequestID) != 36 ||
		string(fresh.Body) != strings.Replace(string(req.Body), req.RequestID, fresh.RequestID, 1) {
		t.Errorf("fresh id: %+v %v", fresh, err)
	}
	if r, _ := Request(&Record{}, nil); r.Method != "POST" || r.Event != "-" {
		t.Errorf("empty record: %+v", r)
	}
}

func TestReplayerFiltersAndWarns(t *testing.T) {
	t.Parallel()
	var b []byte
	for _, ev := range []string{"CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC", "CREATE_RECEIVABLE_DOC"} {
		r := &Record{Method: "POST", Query: "businessType=" + ev}
		r.SetBody([]byte(`{}`))
		var err error
		if b, err = Append(b, r); err != nil {
			t.Fatal(err)
		}
	}
	b = append(b, `{"capture":1,"ti`...)
	receivable, ok := spec.Lookup("CREATE_RECEIVABLE_DOC")
	if !ok {
		t.Fatal("no CREATE_RECEIVABLE_DOC")
	}
	var warnings []string
	s := &Replayer{
		Inputs: []Input{{Name: "a.ndjson", R: strings.NewReader(string(b))}, {Name: "b.ndjson", R: strings.NewReader("")}},
		Events: []spec.Event{receivable},
		Warn:   func(f string, args ...any) { warnings = append(warnings, fmt.Sprintf(f, args...)) },
	}
	var seqs []int
	for reqs := s.Next(); reqs != nil; reqs = s.Next() {
		if reqs[0].Event != "CREATE_RECEIVABLE_DOC" {
			t.Errorf("replayed %s", reqs[0].Event)
		}
		seqs = append(seqs, reqs[0].Seq)
	}
	if fmt.Sprint(seqs) != "[1 2]" || s.Err() != nil {
		t.Errorf("seqs %v, err %v", seqs, s.Err())
	}
	if len(warnings) != 2 || !strings.HasPrefix(warnings[0], "a.ndjson: line 4: torn") || warnings[1] != "b.ndjson: empty, nothing to replay" {
		t.Errorf("warnings %q", warnings)
	}
}

// A pipe that holds payloads, or is not JSON, ends the replay when it is
// reached, with one error naming it.
func TestReplayerRefusesWhatIsNotACapture(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, err string }{
		{`{"requestId":"r"}` + "\n", "p holds payloads, not captures"},
		{"[{}]", "p holds payloads"},
		{"hello\n", "p:1:1: not JSON (invalid character 'h' looking for beginning of value)"},
	} {
		s := &Replayer{Inputs: []Input{{Name: "p", R: strings.NewReader(tt.in)}}, Warn: func(string, ...any) {}}
		if reqs := s.Next(); reqs != nil || s.Err() == nil || !strings.HasPrefix(s.Err().Error(), tt.err) {
			t.Errorf("%q: %v, %v; want %s", tt.in, reqs, s.Err(), tt.err)
		}
	}
}
