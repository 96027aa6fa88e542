package anonymize

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A string that holds a JSON document (a HAR export's postData.text, a
// payload whose data is sent as a string) is anonymized as a payload: its
// spec fields are replaced as the same payload's are when sent as it is,
// with the same stand-ins, and --check reads it the same way.
func TestJSONInsideAStringIsAnonymizedAsAPayload(t *testing.T) {
	t.Parallel()
	data := `{"code":"CGFP202603180007","staffCode":"0038","staffName":"张伟","enterpriseCode":"02010001","enterpriseName":"杭州恒远机械设备有限公司","comments":""}`
	envelope := `{"requestId":"7f1c2d3e-1111-4a5b-9c8d-0123456789ab","businessType":4010,"data":` + data + `}`
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct{ name, body string }{
		{"a HAR's request body", `{"log":{"version":"1.2","entries":[{"request":{"method":"POST","postData":{"mimeType":"application/json","text":` + str(envelope) + `}}}]}}`},
		{"data sent as a string", `{"requestId":"7f1c2d3e-1111-4a5b-9c8d-0123456789ab","businessType":4010,"data":` + str(data) + `}`},
	}
	plain, _, err := newTestAnonymizer(t, testKey).Payload([]byte(envelope))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		out, _, err := a.Payload([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, orig := range []string{"CGFP202603180007", "0038", "张伟", "02010001", "恒远"} {
			if strings.Contains(string(out), orig) {
				t.Errorf("%s: %s survives in %s", tt.name, orig, out)
			}
		}
		var v any
		mustUnmarshal(t, out, &v)
		for _, standIn := range []string{"staffName", "enterpriseName"} {
			var p struct{ Data map[string]string }
			mustUnmarshal(t, plain, &p)
			if !strings.Contains(string(out), p.Data[standIn]) {
				t.Errorf("%s: %s's stand-in %s (as the payload sent as it is gets) is not in %s", tt.name, standIn, p.Data[standIn], out)
			}
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in %s", tt.name, leaks, out)
		}
	}
}
