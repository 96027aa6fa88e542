package anonymize

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// A name written as numeric character references (an XML or HTML encoder
// set to ASCII) is found decoded and written back as references, in the
// base it came in; --check finds one planted so. Before, each came out as
// it went in while --check said nothing was left.
func TestCharacterReferencesAreSearchedDecoded(t *testing.T) {
	t.Parallel()
	const name = "王建国"
	tests := []struct {
		name, value, decodedOrig string
		hex                      bool
	}{
		{"decimal, a name the run replaced", "&#29579;&#24314;&#22269;", name, false},
		{"hex, in a sentence", "signed by &#x738b;&#x5efa;&#x56fd; today", name, true},
		{"an XML element named for a person", "<contactName>&#24352;&#20255;</contactName>", "张伟", false},
		{"a mobile after its label", "&#30005;&#35805;13812345678", "13812345678", false},
		{"JSON escapes in text", `log: name=\u738b\u5efa\u56fd rejected`, name, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := json.Marshal(tt.value)
			a := newTestAnonymizer(t, testKey)
			out, data := anonymizedData(t, a, `"staffName":"`+name+`","note":`+string(v))
			note := data["note"]
			got, _, _ := decodeCharRefs(note)
			if strings.Contains(got, tt.decodedOrig) || note == tt.value {
				t.Errorf("%s survives: %q (decoded %q)", tt.decodedOrig, note, got)
			}
			if !asciiOnly(note) || tt.hex != strings.Contains(note, "&#x") {
				t.Errorf("not written back as references in the same base: %q", note)
			}
			if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
				t.Errorf("--check finds %v in %s", leaks, out)
			}
			plantedFound(t, a, `"note":`+string(v))
		})
	}
	// References to ASCII are markup, and a reference to nobody is kept.
	notesKept(t, "a&#38;b&#60;c", "&#27700;&#27877;", "&#x;&#;&#99999999;")
}

// A value percent-encoded twice (or three times) is searched at each
// level, and written back encoded as often; --check finds one planted so.
// Before, a name encoded twice came out as it went in.
func TestTwicePercentEncodedIsSearched(t *testing.T) {
	t.Parallel()
	const name = "王建国"
	once := url.QueryEscape(name)
	for _, v := range []string{url.QueryEscape(once), url.QueryEscape(url.QueryEscape(once)), "next=" + url.QueryEscape("/c?n="+once)} {
		b, _ := json.Marshal(v)
		a := newTestAnonymizer(t, testKey)
		out, data := anonymizedData(t, a, `"staffName":"`+name+`","note":`+string(b))
		note := data["note"]
		d := note
		for range 3 {
			if u, err := url.QueryUnescape(d); err == nil {
				d = u
			}
		}
		if strings.Contains(d, name) || strings.Count(note, "%25") != strings.Count(v, "%25") {
			t.Errorf("%s: came out %s (decoded %s)", v, note, d)
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("--check finds %v in %s", leaks, out)
		}
		plantedFound(t, a, `"note":`+string(b))
	}
}

func TestDecodeCharRefs(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, form string }{
		{"&#24352;&#x4F1F;", "张伟", "&#"},
		{"&#x5f20;&#20255;", "张伟", "&#x"},
		{`\u5f20\u4f1f`, "张伟", `\u`},
		{`\ud840\udc00!`, "\U00020000!", `\u`},
		{`\ud840x`, `\ud840x`, ""},                       // half a pair
		{`\u0041&#65;&#;&#x;`, `\u0041&#65;&#;&#x;`, ""}, // ASCII, or no number
		{`C:\users\u`, `C:\users\u`, ""},
	}
	for _, tt := range tests {
		got, form, _ := decodeCharRefs(tt.in)
		if got != tt.want || form != tt.form {
			t.Errorf("decodeCharRefs(%q) = %q, %q; want %q, %q", tt.in, got, form, tt.want, tt.form)
		}
	}
}
