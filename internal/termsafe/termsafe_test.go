package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain 收款单", "plain 收款单"},
		{"\x1b[2Jclear", `\x1b[2Jclear`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`},
		{"a\r\nb\tc", `a\r\nb\tc`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202egnp.exe \u2066x\u2069 \u200f \u061c", `bidi \u202egnp.exe \u2066x\u2069 \u200f \u061c`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"truncated \xe6\x94", `truncated \xe6\x94`},
		{"收款\x1b单", `收款\x1b单`},
		{"replacement \ufffd stays", "replacement \ufffd stays"},
		// XML 1.0 has no character for these two: JUnit wrote each as
		// U+FFFD where the text showed it raw.
		{"not in XML \ufffe\uffff", `not in XML \ufffe\uffff`},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Safe(tt.in); got != (tt.in == tt.want) {
			t.Errorf("Safe(%q) = %v", tt.in, got)
		}
	}
	if got := Lines("a\nb\x1b\r\n"); got != "a\nb\\x1b\\r\n" {
		t.Errorf("Lines: %q", got)
	}
	if got := Message("unknown \x1b[2J\n\tgenerate\r"); got != "unknown \\x1b[2J\n\tgenerate\\r" {
		t.Errorf("Message: %q", got)
	}
}

// An answer's start reads the same in every output (check's reasons,
// send's line, JUnit, report, job summary): its layout blanks at the ends
// trimmed, every control inside or at an end escaped, never made a space.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		cut  bool
		want string
	}{
		{"", false, ""},
		{" \r\n\t", false, ""},
		{"oops\nline2\n", false, `oops\nline2`},
		{"a\vb\fc", false, `a\x0bb\x0cc`},
		{"\vx\f", false, `\x0bx\x0c`},
		{"\x00\x1f\x7f\u0085", false, `\x00\x1f\x7f\u0085`},
		{"{\"e\":1}  ", true, `{"e":1}…`},
	} {
		if got := Excerpt([]byte(tt.body), tt.cut); got != tt.want {
			t.Errorf("Excerpt(%q, %v) = %q, want %q", tt.body, tt.cut, got, tt.want)
		}
	}
}

// A line of output from outside never reads as a GitHub Actions workflow
// command: a receiver's answer, a body listen -v shows, an error quoting a
// certificate's names printed "::add-mask::", "::error::" or
// "::stop-commands::" at a line's start, or "##[...]" anywhere, and the
// runner acted on it.
func TestWorkflowCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f       func(string) string
		in, out string
	}{
		{Text, "::error::x", `\x3a:error::x`},
		{Text, "  ::add-mask::s3cret", `  \x3a:add-mask::s3cret`},
		{Text, "\u00a0\u3000\u2028::error title=t::x", "\u00a0\u3000\u2028\\x3a:error title=t::x"},
		{Text, "::stop-commands::tok", `\x3a:stop-commands::tok`},
		{Text, "answered 200 OK: ::error::x", "answered 200 OK: ::error::x"}, // not a line's start
		{Text, "x\n::error::y", `x\n::error::y`},                             // \n is two characters here
		{Text, "\t::error::y", `\t::error::y`},
		{Text, "::1", "::1"},
		{Text, "[::1]:8080 ::ffff:10.0.0.1", "[::1]:8080 ::ffff:10.0.0.1"},
		{Text, "##[add-mask]s3cret", `\x23#[add-mask]s3cret`},
		{Text, "ok ###[error]x", `ok #\x23#[error]x`},
		{Text, "#[x] ## [y]", "#[x] ## [y]"},
		{Lines, "ok\n  ::stop-commands::tok\n::error::x", "ok\n  \\x3a:stop-commands::tok\n\\x3a:error::x"},
		{Lines, "ok ::error::x\nb ##[warning]y", "ok ::error::x\nb \\x23#[warning]y"},
		{Lines, "\x1b::error::x", `\x1b::error::x`},
		{Lines, "a\x1b\n ::error::x", "a\\x1b\n \\x3a:error::x"},
		{Message, "valid for a\n::error::pwned, not b\n\t::warning::x", "valid for a\n\\x3a:error::pwned, not b\n\t\\x3a:warning::x"},
	}
	for _, tt := range tests {
		if got := tt.f(tt.in); got != tt.out {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.out)
		}
	}
	if got, want := string(JSON([]byte(`{"a":"##[set-output name=exit-code;]0"}`))), `{"a":"\u0023#[set-output name=exit-code;]0"}`; got != want {
		t.Errorf("JSON: got %s, want %s", got, want)
	}
	if !Safe("::1") || Safe("::error::x") || Safe("a ##[x]") {
		t.Error("Safe does not agree with Text")
	}
}

// readsAsCommand is the runner's reading of a line (ActionCommand.cs:
// TryParseV2 after TrimStart, TryParse's IndexOf("##[")), written apart
// from termsafe's.
func readsAsCommand(line string) bool {
	l := strings.TrimLeftFunc(line, unicode.IsSpace)
	return strings.HasPrefix(l, "::") && strings.Contains(l[2:], "::") || strings.Contains(line, "##[")
}

// FuzzText: whatever comes in, what goes out is safe, the same when it was
// already safe, and on one line.
func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31m", "\u202e", "\xff", "收款\u009b", "a\nb", "\ufffd", "x\n ::error::y", "\u3000::a::", "###[a]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if !Safe(got) || !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q is not safe", s, got)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Fatalf("Text(%q) = %q spans lines", s, got)
		}
		if Safe(s) != (got == s) {
			t.Fatalf("Safe(%q) = %v but Text gives %q", s, Safe(s), got)
		}
		if readsAsCommand(got) {
			t.Fatalf("Text(%q) = %q reads as a workflow command", s, got)
		}
		lines := Lines(s)
		for line := range strings.SplitSeq(lines, "\n") {
			if !Safe(line) || readsAsCommand(line) {
				t.Fatalf("Lines(%q) = %q is not safe", s, lines)
			}
		}
		for _, r := range got {
			if r < 0x20 || r >= 0x7f && r <= 0x9f || isBidi(r) {
				t.Fatalf("Text(%q) = %q holds %U", s, got, r)
			}
		}
	})
}

func TestJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"plain 收款单"}`, `{"a":"plain 收款单"}`},
		{"{\"a\":\"\u0085\u202e\x7f\"}", `{"a":"\u0085\u202e\u007f"}`},
		{"{\"a\":\"bad \xff\"}", `{"a":"bad \ufffd"}`},
		{`{"a":"\u001b]52"}`, `{"a":"\u001b]52"}`},
		{"{\"a\":\"\ufffe\uffff\"}", `{"a":"\ufffe\uffff"}`},
	}
	for _, tt := range tests {
		if got := string(JSON([]byte(tt.in))); got != tt.want {
			t.Errorf("JSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Eight bytes at a time: what needs escaping is found in every place
	// of a word and after one.
	for _, bad := range []string{"\x7f", "\u0085", "\u202e", "\xff"} {
		for at := range 20 {
			in := strings.Repeat("a", at) + bad + "bcdefghijklmnop"
			want := strings.Repeat("a", at) + map[string]string{"\x7f": `\u007f`, "\u0085": `\u0085`, "\u202e": `\u202e`, "\xff": `\ufffd`}[bad] + "bcdefghijklmnop"
			if got := string(JSON([]byte(in))); got != want {
				t.Errorf("JSON(%q) = %q, want %q", in, got, want)
			}
		}
	}
	safe := []byte(`{"a":"收款单"}`)
	if n := testing.AllocsPerRun(10, func() { JSON(safe) }); n != 0 {
		t.Errorf("JSON of safe input allocates %v times", n)
	}
}

// FuzzJSON: any string encoded as JSON and passed through JSON is safe to
// print (no raw C0, C1, DEL, bidi or invalid UTF-8) and decodes to the same
// value.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31m", "\u202e", "\xff", "收款\u009b", "a\nb", "\x7f", "##[add-mask]x", "###["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]string{s: s}); err != nil {
			t.Skip()
		}
		in := buf.Bytes()
		out := JSON(bytes.Clone(in))
		if !Safe(strings.TrimSuffix(string(out), "\n")) || readsAsCommand(string(out)) {
			t.Fatalf("JSON(%q) = %q is not safe", in, out)
		}
		var a, b map[string]string
		if err := json.Unmarshal(in, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("JSON(%q) = %q does not decode: %v", in, out, err)
		}
		if len(a) != 1 || len(b) != 1 || a[s] == "" && b[s] != "" {
			t.Fatalf("JSON(%q) = %q decodes to %q, want %q", in, out, b, a)
		}
		for k, v := range a {
			if b[k] != v {
				t.Fatalf("JSON(%q) = %q decodes to %q, want %q", in, out, b, a)
			}
		}
	})
}
