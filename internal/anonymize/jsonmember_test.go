package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/capture"
)

// A body that should be JSON but does not parse (a byte that is not
// UTF-8, a body cut short) is anonymized as text, where its members still
// say what their values are: the spec's identifying fields and the names
// labelled reads are replaced as in JSON, the same stand-in; a currency's
// code, an enumeration and the syntax are kept byte for byte.
func TestBrokenJSONMembersLabelTheirValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, body string
		gone, kept []string
	}{
		{
			name: "a byte that is not UTF-8",
			body: `{"requestId":"r1","businessType":4010,"data":{"code":"CGFP202610180099","invoiceCode":"26322000000174660123",` +
				`"taxCode":"91610113MACUT3TJ2E","customerCode":"07615643","staffCode":"1684","staffName":"廖` + "\xff" + `桂英",` +
				`"applicationCode" : "107333", "applicationName": "高华","comments":"","currency":"CNY","status":"PASS"}}`,
			gone: []string{"CGFP202610180099", "26322000000174660123", "91610113MACUT3TJ2E", "07615643", `"1684"`, "桂英", "107333", "高华"},
			kept: []string{`{"requestId":"r1","businessType":4010,"data":{"code":"`, `"applicationCode" : "`, `"comments":"","currency":"CNY","status":"PASS"}}`, "\xff"},
		},
		{
			name: "a form's signs in a value",
			body: `{"data":{"comments":"单价=12&数量=3","staffName":"高华","taxCode":"91610113MACUT3TJ2E","status":"PASS"` + "\xff",
			gone: []string{"高华", "91610113MACUT3TJ2E"},
			kept: []string{`{"data":{"comments":"`, `"status":"PASS"` + "\xff"},
		},
		{
			name: "a receipt cut short",
			body: `{"requestId":"r2","businessType":5007,"data":{"收款单":{"收款单编号":"SKD202610310034","币别":{"code":"CNY","field_7bf2h":"人民币"},` +
				`"客户名称":{"code":"08051037","name":"武汉市佳美贸易有限公司"},"汇率":1.0000},"源单明细":[{"源单编号":"XSDD00009081","备注":"月结60天，张伟经办"},` +
				`{"源单客户":{"code":"08051037","name":"武汉市佳`,
			gone: []string{"SKD202610310034", "08051037", "佳美", "XSDD00009081", "张伟"},
			kept: []string{`"币别":{"code":"CNY","field_7bf2h":"人民币"}`, `"汇率":1.0000}`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := newTestAnonymizer(t, testKey)
			out := storedText(t, a, tt.body)
			for _, orig := range tt.gone {
				if strings.Contains(out, orig) {
					t.Errorf("%s is still in %s", orig, out)
				}
			}
			for _, kept := range tt.kept {
				if !strings.Contains(out, kept) {
					t.Errorf("%s is no longer in %s", kept, out)
				}
			}
			if leaks := a.check(context.Background(), []byte(out), 1); len(leaks) != 0 {
				t.Errorf("--check finds %v in the output %s", leaks, out)
			}
			if leaks := a.check(context.Background(), []byte(tt.body), 1); len(leaks) == 0 {
				t.Errorf("--check finds no leak in the original %s", tt.body)
			}
		})
	}
	// The stand-in is the one the same value gets in a field of JSON; a
	// byte that is not UTF-8 stays between the same characters.
	a := newTestAnonymizer(t, testKey)
	standIn := a.r.Replace(personName, "廖桂英")
	_, first := utf8.DecodeRuneInString(standIn)
	if out, want := storedText(t, a, `{"data":{"staffName":"廖`+"\xff"+`桂英"}`), `{"data":{"staffName":"`+standIn[:first]+"\xff"+standIn[first:]+`"}`; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out := storedText(t, a, `{"data":{"staffName":"高华","staffCode":"1684"`)
	if want := `{"data":{"staffName":"` + a.r.Replace(personName, "高华") + `","staffCode":"` + a.r.Replace(code, "1684") + `"`; out != want {
		t.Errorf("got %s, want %s", out, want)
	}
}

// storedText is body anonymized as a capture record's request body and
// as its answer's, which must come out the same; an answer's encoding
// says what its body is (base64 only while it is not UTF-8).
func storedText(t *testing.T, a *anonymizer, body string) string {
	t.Helper()
	stored, encoding := capture.EncodeBody([]byte(body))
	rec := capture.Record{Capture: 1, Method: "POST", Path: "/", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE",
		Headers: http.Header{}, Body: stored, BodyEncoding: encoding,
		Response: &capture.Response{Status: 400, Body: stored, BodyEncoding: encoding}}
	line, err := json.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := a.Stream(context.Background(), bytes.NewReader(append(line, '\n')), &out, Options{}); err != nil {
		t.Fatal(err)
	}
	var got capture.Record
	mustUnmarshal(t, out.Bytes(), &got)
	req, err := got.RequestBody()
	if err != nil {
		t.Fatal(err)
	}
	answer, err := capture.DecodeBody(got.Response.Body, got.Response.BodyEncoding)
	if err != nil {
		t.Fatalf("the answer's body: %v", err)
	}
	if !bytes.Equal(answer, req) {
		t.Errorf("the answer's body became %q, the request's %q", answer, req)
	}
	return string(req)
}
