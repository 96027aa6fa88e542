package validateout

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/validate"
)

// A validate line carries a file name, a payload's key and a message that
// may quote the payload: none of their control or bidi bytes reaches the
// terminal raw, and a name with a newline stays on its finding's line.
func TestPayloadTextIsTerminalSafe(t *testing.T) {
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, body string
	}{
		{"plain", "a.json", `{"businessType":5009,"data":{}}`},
		{"escape in file", "a\x1b]0;pwned\x07.json", `{"businessType":5009,"data":{}}`},
		{"newline in file", "a\nb.json", `{"businessType":5009,"data":{}}`},
		{"escape in key", "a.json", `{"businessType":5009,"data":{"\u001b[2Jx":1}}`},
		{"bidi in value", "a.json", `{"businessType":"\u202eabc","data":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := validate.OpenFiles(context.Background(), []string{"-"}, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			var out []byte
			_, err = v.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
				c.File = tc.file
				out = Payload(c).AppendText(out, &term.Style{})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(out) == 0 {
				t.Fatal("no findings")
			}
			if strings.ContainsAny(string(out), "\x1b\x07\u202e") {
				t.Errorf("raw control bytes in %q", out)
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, strings.SplitN(strings.ReplaceAll(tc.file, "\n", `\n`), "\x1b", 2)[0]) {
					t.Errorf("line %q does not start with its file", l)
				}
			}
		})
	}
}

// A run a signal stopped, or an input that could not be read, is no pass
// and no plain FAIL: its summary says interrupted or incomplete (with the
// error in JSON), beside the counts of what was checked.
func TestValidateSummaryInterrupted(t *testing.T) {
	t.Parallel()
	counts := validate.Summary{Payloads: 3, Failed: 1, Errors: 3, Warnings: 1}
	for _, tc := range []struct {
		name     string
		sum      ValidateSummary
		text, js string
	}{
		{"finished", ValidateSummary{Summary: counts},
			"FAIL: 3 payloads checked, 1 failed; 3 errors, 1 warning\n",
			`{"type":"summary","payloads":3,"failed":1,"errors":3,"warnings":1}` + "\n"},
		{"interrupted", ValidateSummary{Summary: counts, Interrupted: true},
			"interrupted: 3 payloads checked, 1 failed; 3 errors, 1 warning\n",
			`{"type":"summary","payloads":3,"failed":1,"errors":3,"warnings":1,"interrupted":true}` + "\n"},
		{"interrupted before a payload", ValidateSummary{Interrupted: true},
			"interrupted: 0 payloads checked, 0 failed; 0 errors, 0 warnings\n",
			`{"type":"summary","payloads":0,"failed":0,"errors":0,"warnings":0,"interrupted":true}` + "\n"},
		{"an input that could not be read", ValidateSummary{Summary: counts, Error: "<stdin>: read /dev/stdin: is a directory"},
			"incomplete: 3 payloads checked, 1 failed; 3 errors, 1 warning\n",
			`{"type":"summary","payloads":3,"failed":1,"errors":3,"warnings":1,"error":"\u003cstdin\u003e: read /dev/stdin: is a directory"}` + "\n"},
	} {
		if got := string(tc.sum.AppendText(nil, &term.Style{})); got != tc.text {
			t.Errorf("%s: text %q, want %q", tc.name, got, tc.text)
		}
		if got := string(tc.sum.AppendJSON(nil)); got != tc.js {
			t.Errorf("%s: JSON %q, want %q", tc.name, got, tc.js)
		}
	}
}

// Payloads no rule could look at are counted apart in every output, never
// among those checked; a run where every payload was checked reads as it
// always has (no "not checked", no "notChecked" member).
func TestValidateSummaryNotChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		sum      ValidateSummary
		text, js string
	}{
		{"all checked", ValidateSummary{Summary: validate.Summary{Payloads: 2}},
			"ok: 2 payloads checked, 0 failed; 0 errors, 0 warnings\n",
			`{"type":"summary","payloads":2,"failed":0,"errors":0,"warnings":0}` + "\n"},
		{"some not checked", ValidateSummary{Summary: validate.Summary{Payloads: 2, NotChecked: 1, Warnings: 1}},
			"ok: 2 payloads checked, 1 not checked, 0 failed; 0 errors, 1 warning\n",
			`{"type":"summary","payloads":2,"failed":0,"errors":0,"warnings":1,"notChecked":1}` + "\n"},
		{"refused requests", ValidateSummary{Summary: validate.Summary{Payloads: 1, NotChecked: 4, Failed: 5, Errors: 8}},
			"FAIL: 1 payload checked, 4 not checked, 5 failed; 8 errors, 0 warnings\n",
			`{"type":"summary","payloads":1,"failed":5,"errors":8,"warnings":0,"notChecked":4}` + "\n"},
		{"nothing checked", ValidateSummary{Summary: validate.Summary{NotChecked: 1}, Error: NothingChecked},
			"NOT CHECKED: 0 payloads checked, 1 not checked, 0 failed; 0 errors, 0 warnings\n",
			`{"type":"summary","payloads":0,"failed":0,"errors":0,"warnings":0,"notChecked":1,"error":"nothing checked"}` + "\n"},
	} {
		if got := string(tc.sum.AppendText(nil, &term.Style{})); got != tc.text {
			t.Errorf("%s: text %q, want %q", tc.name, got, tc.text)
		}
		if got := string(tc.sum.AppendJSON(nil)); got != tc.js {
			t.Errorf("%s: JSON %q, want %q", tc.name, got, tc.js)
		}
	}
}

// A payload not checked whose finding is ignored still says so: a line of
// text, a JSON line, a skipped JUnit case; never nothing, as a pass has.
func TestPayloadNotCheckedIgnored(t *testing.T) {
	t.Parallel()
	const notJSON = `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"not json","bodyEncoding":"utf8"}` + "\n"
	const closed = `{"capture":2,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{},"body":"","bodyEncoding":"utf8","rejected":{"reason":"listen was stopping","headBytes":40,"closedAtStop":true}}` + "\n"
	for _, tc := range []struct {
		name, in, ignore  string
		text, js, skipped string
	}{
		{"not JSON", notJSON, "json-syntax",
			`in.ndjson:1: not checked: the body is not JSON (at its line 1, column 1: `,
			`{"type":"notChecked","file":"in.ndjson","record":1,"reason":"the body is not JSON (at its line 1, column 1: `,
			"not checked: the body is not JSON"},
		{"closed at stop", closed, "http-closed-at-stop",
			`in.ndjson:1: not checked: listen never read it: listen was stopping`,
			`{"type":"notChecked","file":"in.ndjson","record":1,"reason":"listen never read it: listen was stopping`,
			"not checked: listen never read it: listen was stopping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := validate.New(validate.Options{Ignore: []string{tc.ignore}})
			if err != nil {
				t.Fatal(err)
			}
			fs, err := validate.OpenFiles(context.Background(), []string{"-"}, strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			var cases []Payload
			sum, err := v.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
				c.File = "in.ndjson"
				cases = append(cases, Payload(c))
				return nil
			})
			if err != nil || len(cases) != 1 || sum.Payloads != 0 || sum.NotChecked != 1 {
				t.Fatalf("cases %d, summary %+v, err %v", len(cases), sum, err)
			}
			c := cases[0]
			if got := string(c.AppendText(nil, &term.Style{})); !strings.HasPrefix(got, tc.text) {
				t.Errorf("text %q, want it to start %q", got, tc.text)
			}
			if got := string(c.AppendJSON(nil, &term.Style{})); !strings.HasPrefix(got, tc.js) {
				t.Errorf("JSON %q, want it to start %q", got, tc.js)
			}
			if got := c.JUnit(); !strings.HasPrefix(got.Skipped, tc.skipped) || got.Failure != "" {
				t.Errorf("JUnit %+v, want skipped %q", got, tc.skipped)
			}
		})
	}
}

// A finding of the whole body or request (no path in the payload) is
// named in JUnit, and so in the job summary, as the text names it:
// "json-syntax (body): ...", not "json-syntax : ...".
func TestPayloadJUnitNamesWhereAsText(t *testing.T) {
	t.Parallel()
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, in, want, at string }{
		{"body", `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"not json","bodyEncoding":"utf8"}` + "\n", "json-syntax (body): the body's line 1, column 1: ", "in.ndjson:1"},
		{"path", `{"businessType":"x","data":{}}` + "\n", "envelope-business-type businessType: ", "in.ndjson:1:17"},
		{"syntax", "{\"data\": x}\n", "json-syntax (body): not a JSON value", "in.ndjson:1:10"},
	} {
		fs, err := validate.OpenFiles(context.Background(), []string{"-"}, strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var cases []Payload
		_, err = v.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
			c.File = "in.ndjson"
			cases = append(cases, Payload(c))
			return nil
		})
		fs.Close()
		if err != nil || len(cases) != 1 {
			t.Fatalf("%s: %d cases, err %v", tc.name, len(cases), err)
		}
		c := cases[0]
		text := string(c.AppendText(nil, &term.Style{}))
		got := c.JUnit()
		// The failure is the text's line of its finding, place first
		// (file:line[:column]: what), as is each line of the detail: a
		// JUnit reader, the job summary and an editor find it there.
		if !strings.HasPrefix(got.Failure, tc.at+": error "+tc.want) || !strings.HasPrefix(text, got.Failure+"\n") && !strings.Contains(text, "\n"+got.Failure+"\n") {
			t.Errorf("%s: JUnit failure %q, want the text's line starting %q:\n%s", tc.name, got.Failure, tc.at+": error "+tc.want, text)
		}
		for line := range strings.SplitSeq(strings.TrimSpace(got.Detail), "\n") {
			if !strings.HasPrefix(line, "in.ndjson:1") || !strings.HasPrefix(text, line+"\n") && !strings.Contains(text, "\n"+line+"\n") {
				t.Errorf("%s: JUnit detail line %q is not the text's, placed:\n%s", tc.name, line, text)
			}
		}
	}
}

// TestFindingsPlacedAsCompilersPlaceThem: a finding's text line starts
// file:line:column: where the column is in the file (a payload of its own
// line, a document), file:line: for a capture record's body, whose
// positions are the body's (said in the message), and file:line:column:
// again for a record line that is not JSON. Found by ls45: "x.ndjson:2:
// error json-syntax (body): line 1, column 10:" where go vet and every
// other command say "x.ndjson:2:10:".
func TestFindingsPlacedAsCompilersPlaceThem(t *testing.T) {
	t.Parallel()
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, in, want, at string }{
		{"an NDJSON line", `{"data":{}}` + "\n" + `{"data": x}` + "\n", "in.ndjson:2:10: error json-syntax (body): not a JSON value: ", "in.ndjson:2:10"},
		{"a document", "{\n  \"a\": 1,\n  \"b\": x\n}\n", "in.ndjson:3:8: error json-syntax (body): not a JSON value: ", "in.ndjson:3:8"},
		{"a capture record's body", `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"not json","bodyEncoding":"utf8"}` + "\n",
			"in.ndjson:1: error json-syntax (body): the body's line 1, column 1: not a JSON value: ", "in.ndjson:1"},
		{"a record line that is not JSON", `{"capture":1, x}` + "\n", "in.ndjson:1:15: error capture-record (body): not a readable capture record: not JSON (", "in.ndjson:1:15"},
	} {
		fs, err := validate.OpenFiles(context.Background(), []string{"-"}, strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var text, js []byte
		_, err = v.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
			c.File = "in.ndjson"
			text = Payload(c).AppendText(text, &term.Style{})
			js = Payload(c).AppendJSON(js, &term.Style{})
			return nil
		})
		fs.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains("\n"+string(text), "\n"+tc.want) {
			t.Errorf("%s: text\n%s\nwant a line starting %q", tc.name, text, tc.want)
		}
		if !strings.Contains(string(js), `"at":"`+tc.at+`"`) {
			t.Errorf("%s: JSON %s, want \"at\":%q", tc.name, js, tc.at)
		}
	}
}

// Every text line starts with its place as compilers say it,
// file:line:column: (editors, problem matchers and annotations read no
// other), said once: an array's element follows the message, and a
// body that is not JSON under --ignore json-syntax is placed there, not
// in a "(line 1, column 1: ...)" of its own. A capture record's body
// keeps its own position, which is not the file's (found by hk45).
func TestPayloadTextPlace(t *testing.T) {
	t.Parallel()
	const record = `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"hello","bodyEncoding":"utf8"}` + "\n"
	for _, tc := range []struct {
		name, file, in, ignore string
		text, js               []string
		skipped                string // the JUnit case's, of the last payload
	}{
		{"NDJSON line not JSON", "nc.ndjson", "{\"a\":1}\nhello\n", "json-syntax",
			[]string{
				`nc.ndjson:1:2: warning unknown-field a: a is not a field of the envelope`,
				`nc.ndjson:2:1: not checked: the body is not JSON (not a JSON value: the bare word "hello" (only null, true and false go without quotes; a string needs double quotes)) and json-syntax is ignored`,
			},
			[]string{`{"type":"notChecked","file":"nc.ndjson","record":2,"reason":"the body is not JSON (not a JSON value: the bare word \"hello\" (only null, true and false go without quotes; a string needs double quotes)) and json-syntax is ignored","at":"nc.ndjson:2:1"}`},
			`not checked: the body is not JSON (not a JSON value: the bare word "hello" (only null, true and false go without quotes; a string needs double quotes)) and json-syntax is ignored (at nc.ndjson:2:1)`},
		{"document not JSON", "doc.json", "{\n  \"a\": 1,\n  \"b\" 2\n}\n", "json-syntax",
			[]string{`doc.json:3:7: not checked: the body is not JSON (want ':' after a key: unexpected character '2') and json-syntax is ignored`},
			[]string{`{"type":"notChecked","file":"doc.json","reason":"the body is not JSON (want ':' after a key: unexpected character '2') and json-syntax is ignored","at":"doc.json:3:7"}`},
			"not checked: the body is not JSON (want ':' after a key: unexpected character '2') and json-syntax is ignored (at doc.json:3:7)"},
		{"array element", "el.json", "[\n  {\"a\":1},\n  {\"requestId\": 5,\n   \"b\": 2}\n]\n", "",
			[]string{
				`el.json:2:4: warning unknown-field a: a is not a field of the envelope (element 0)`,
				`el.json:3:17: error envelope-request-id requestId: want a string (UUID), got number (element 1)`,
				`el.json:4:4: warning unknown-field b: b is not a field of the envelope (element 1)`,
			}, nil, ""},
		{"capture body not JSON", "cap.ndjson", record, "json-syntax",
			[]string{`cap.ndjson:1: not checked: the body is not JSON (at its line 1, column 1: not a JSON value: the bare word "hello" (only null, true and false go without quotes; a string needs double quotes)) and json-syntax is ignored`},
			[]string{`{"type":"notChecked","file":"cap.ndjson","record":1,"reason":"the body is not JSON (at its line 1, column 1: not a JSON value: the bare word \"hello\" (only null, true and false go without quotes; a string needs double quotes)) and json-syntax is ignored","at":"cap.ndjson:1"}`},
			`not checked: the body is not JSON (at its line 1, column 1: not a JSON value: the bare word "hello" (only null, true and false go without quotes; a string needs double quotes)) and json-syntax is ignored`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ignore []string
			if tc.ignore != "" {
				ignore = []string{tc.ignore}
			}
			v, err := validate.New(validate.Options{Ignore: ignore})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			fs, err := validate.OpenFiles(context.Background(), []string{path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			var text, js []byte
			var last term.TestCase
			_, err = v.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
				c.File = tc.file
				text = Payload(c).AppendText(text, &term.Style{})
				js = Payload(c).AppendJSON(js, &term.Style{})
				last = Payload(c).JUnit()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.text {
				if !slices.Contains(strings.Split(string(text), "\n"), want) {
					t.Errorf("text\n%s\nhas no line\n%s", text, want)
				}
			}
			for _, want := range tc.js {
				if !slices.Contains(strings.Split(string(js), "\n"), want) {
					t.Errorf("JSON\n%s\nhas no line\n%s", js, want)
				}
			}
			if tc.skipped != "" && last.Skipped != tc.skipped {
				t.Errorf("JUnit skipped %q, want %q", last.Skipped, tc.skipped)
			}
		})
	}
}

// A file name that is not UTF-8 is given in --output json so that a JSON
// reader finds the file: its bytes in base64 under "fileEncoding":
// "base64", as a capture record gives such a path (pathEncoding), never
// the U+FFFD encoding/json writes for each byte, which names no file; a
// UTF-8 name stays itself, without the member. "at" says the place as the
// text does (the byte as \xff). Found by sv47: "file":"bad\ufffdname.json".
func TestPayloadJSONFileNotUTF8(t *testing.T) {
	t.Parallel()
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, body string
		wantFile, enc    string
		wantAt           string
	}{
		{"finding", "bad\xffname.json", `{"businessType":5009,"data":{}}`, "YmFk/25hbWUuanNvbg==", "base64", `bad\xffname.json:1:`},
		{"utf8 name", "收款单\x1b.json", `{"businessType":5009,"data":{}}`, "收款单\x1b.json", "", "收款单\x1b.json:1:"},
		{"not checked", "n\xe9.ndjson", `{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"not json","bodyEncoding":"utf8"}` + "\n", "bukubmRqc29u", "base64", `n\xe9.ndjson:1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs, err := validate.OpenFiles(context.Background(), []string{"-"}, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			vv := v
			if tc.name == "not checked" {
				if vv, err = validate.New(validate.Options{Ignore: []string{"json-syntax"}}); err != nil {
					t.Fatal(err)
				}
			}
			var js []byte
			if _, err := vv.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
				c.File = tc.file
				js = Payload(c).AppendJSON(js, &term.Style{})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(js), "\n"), "\n")
			if len(js) == 0 {
				t.Fatal("no JSON lines")
			}
			for _, l := range lines {
				var got struct{ File, FileEncoding, At string }
				if err := json.Unmarshal([]byte(l), &got); err != nil {
					t.Fatalf("%s: %v", l, err)
				}
				if got.File != tc.wantFile || got.FileEncoding != tc.enc || !strings.HasPrefix(got.At, tc.wantAt) {
					t.Errorf("%s: file %q, fileEncoding %q, at %q; want %q, %q, at %q…", l, got.File, got.FileEncoding, got.At, tc.wantFile, tc.enc, tc.wantAt)
				}
				if tc.enc == "" && strings.Contains(l, "fileEncoding") {
					t.Errorf("%s: fileEncoding on a UTF-8 name", l)
				}
			}
		})
	}
}

// The summary's error names a file as the text on stderr does, a byte
// that is not UTF-8 as its escape: encoding/json's U+FFFD named no file
// (left by sv47).
func TestSummaryJSONErrorNotUTF8(t *testing.T) {
	t.Parallel()
	js := string(ValidateSummary{Error: "c\xff.json: no such file or directory"}.AppendJSON(nil))
	if !strings.Contains(js, `"error":"c\\xff.json: no such file or directory"`) {
		t.Errorf("JSON %s: want the error's name as the text says it, c\\xff.json", js)
	}
}
