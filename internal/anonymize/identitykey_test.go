package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// A query parameter, a header or an XML element named as an identifying
// field of the spec (staffName, X-Staff-Name, <taxCode>) labels its value
// as the field does in JSON, with the same stand-in: they were kept, and
// --check passed them, as the names labelled knew were others' (operator,
// contactName). A currency's code keeps its own, and so does a field of
// the same name no identity marks.
func TestSpecFieldNamesLabelTheirValues(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	q := url.Values{"staffName": {"高华"}, "taxCode": {"91610113MACUT3TJ2E"}, "currency": {"CNY"}}
	body := `<invoice><applicationName>李秀英</applicationName><customerCode>07615643</customerCode><currency>CNY</currency></invoice>`
	rec := capture.Record{Capture: 1, Method: "POST", Path: "/hook", Query: q.Encode(),
		Headers: http.Header{"X-Staff-Name": {"高华"}, "X-Application-Code": {"107333"}, "Content-Type": {"application/xml"}},
		Body:    body, BodyEncoding: capture.UTF8,
		Response: &capture.Response{Status: 200, Body: "{}", BodyEncoding: capture.UTF8}}
	line, err := json.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')
	var out bytes.Buffer
	st, err := a.Stream(context.Background(), bytes.NewReader(line), &out, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Leaks) != 0 {
		t.Errorf("--check finds %v in the output %s", st.Leaks, out.Bytes())
	}
	if chk, err := a.stream(context.Background(), bytes.NewReader(line), io.Discard, Options{checkOnly: true}); err != nil || len(chk.Leaks) == 0 {
		t.Errorf("--check finds no leak in the original %s (%v)", line, err)
	}
	var got capture.Record
	mustUnmarshal(t, out.Bytes(), &got)
	gq, err := url.ParseQuery(got.Query)
	if err != nil {
		t.Fatal(err)
	}
	standIn := a.r.Replace(personName, "高华")
	for _, c := range []struct{ what, got, want string }{
		{"?staffName", gq.Get("staffName"), standIn},
		{"X-Staff-Name", got.Headers.Get("X-Staff-Name"), standIn},
		{"?taxCode", gq.Get("taxCode"), a.r.Replace(TaxID, "91610113MACUT3TJ2E")},
		{"X-Application-Code", got.Headers.Get("X-Application-Code"), a.r.Replace(code, "107333")},
		{"?currency", gq.Get("currency"), "CNY"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
	for _, orig := range []string{"李秀英", "07615643"} {
		if strings.Contains(got.Body, orig) {
			t.Errorf("%s is still in the body %s", orig, got.Body)
		}
	}
	if !strings.Contains(got.Body, "<currency>CNY</currency></invoice>") {
		t.Errorf("the body's currency changed: %s", got.Body)
	}
}
