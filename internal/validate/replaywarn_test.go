package validate

import (
	"strconv"
	"strings"
	"testing"
)

// TestCaptureReplayWarnsAsReplayDoes: a record whose body is shorter than
// its Content-Length is one whsim replay sends with a warning (edited
// since, when listen answered it 2xx; cut short, when not): validate names
// it under capture-replay, as a warning, in replay's words. Found by ls45:
// validate passed a record whose Content-Length was edited to 99999
// (exit 0) while replay warned "edited since".
func TestCaptureReplayWarnsAsReplayDoes(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	body := strings.ReplaceAll(strings.ReplaceAll(load(t, "receipt.json"), "\n", ""), `"`, `\"`)
	n := len(strings.ReplaceAll(load(t, "receipt.json"), "\n", ""))
	line := func(headers, enc, body string, status string) []byte {
		return []byte(`{"capture":1,"time":"2026-11-22T04:00:00.123456789Z","remote":"127.0.0.1:53422","method":"POST","path":"/hook",` +
			`"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]` + headers + `},"body":"` + body +
			`","bodyEncoding":"` + enc + `","response":{"status":` + status + `,"body":"","bodyEncoding":"utf8"}}`)
	}
	itoa := strconv.Itoa
	tests := []struct {
		name string
		line []byte
		want string // the capture-replay finding's message, "" none
	}{
		{"as listen wrote it", line(`,"Content-Length":["`+itoa(n)+`"]`, "utf8", body, "200"), ""},
		{"edited since, answered 2xx", line(`,"Content-Length":["99999"]`, "utf8", body, "200"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99999, " + itoa(n) + " bytes recorded), which listen answered 200 whole: edited since; sent as recorded"},
		{"edited since, named in lower case", line(`,"content-length":["99999"]`, "utf8", body, "204"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99999, " + itoa(n) + " bytes recorded), which listen answered 204 whole: edited since; sent as recorded"},
		{"a second value larger", line(`,"Content-Length":["`+itoa(n)+`","99999"]`, "utf8", body, "200"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99999, " + itoa(n) + " bytes recorded), which listen answered 200 whole: edited since; sent as recorded"},
		{"cut short, answered 400", line(`,"Content-Length":["100"]`, "utf8", `{\"requestId\":\"abc\",`, "400"),
			"whsim replay warns as it sends it again: its body came cut short (Content-Length 100, 19 bytes recorded): sent as recorded, as a whole call, which the sender never made"},
		{"base64, edited since", line(`,"Content-Length":["99"]`, "base64", b64(`{"requestId":"x"}`), "200"),
			"whsim replay warns as it sends it again: its body is shorter than its Content-Length (99, 17 bytes recorded), which listen answered 200 whole: edited since; sent as recorded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _, _ := v.checkCapture(tt.line)
			got := ""
			for _, f := range fs {
				if f.Rule == ruleReplay {
					if got != "" {
						t.Fatalf("two capture-replay findings: %+v", fs)
					}
					got = f.Message
					if f.Severity != Warning {
						t.Errorf("severity %s, want warning: replay sends it", f.Severity)
					}
				}
			}
			if got != tt.want {
				t.Errorf("capture-replay %q,\nwant %q\n(findings %+v)", got, tt.want, fs)
			}
		})
	}
}
