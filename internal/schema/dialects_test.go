package schema

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// JSON Schema's pattern is ECMA-262, where $ is the end of the string, but
// validators match it with their language's engine. The dialects below are
// the readings of ^ and $ that mainstream validators have, each as a
// regexp engine for santhosh-tekuri/jsonschema: RE2 itself, and RE2 with
// the pattern's final $ rewritten to what that dialect's $ matches. The
// exported schemas must give every dialect the same verdicts.

// dialect is one reading of a pattern.
type dialect struct {
	name    string
	compile jsonschema.RegexpEngine
	// lax: the dialect's $ matches before a line break too, so that a
	// pattern alone passes a good value followed by one.
	lax bool
}

func dialects() []dialect {
	return []dialect{
		{name: "RE2 (Go's validators; $ is the end of the string, as in ECMA-262 and Ajv)", compile: re2},
		{name: `$ also before a final "\n" (Python's re.search, PCRE, Perl, .NET)`, compile: finalDollar(`\n?\z`), lax: true},
		{name: `$ also before a final line terminator (java.util.regex find)`,
			compile: finalDollar(`(?:\r\n|[\n\r\x{85}\x{2028}\x{2029}])?\z`), lax: true},
		{name: "^ and $ at every line (Ruby, or a multi-line flag)", compile: multiline, lax: true},
	}
}

func re2(p string) (jsonschema.Regexp, error) { return regexp.Compile(p) }

func multiline(p string) (jsonschema.Regexp, error) { return regexp.Compile("(?m)" + p) }

// finalDollar is an engine whose $ matches what end matches: a pattern's $
// outside a character class must be its last character (every pattern of
// the schemas has it there, or none), which then consumes what the
// dialect's $ allows before the end.
func finalDollar(end string) jsonschema.RegexpEngine {
	return func(p string) (jsonschema.Regexp, error) {
		class, esc := false, false
		for i, c := range p {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '[':
				class = true
			case c == ']':
				class = false
			case c == '$' && !class:
				if i != len(p)-1 {
					return nil, fmt.Errorf("pattern %s: a $ before its end, which this test cannot read as another dialect would", p)
				}
				return regexp.Compile(p[:i] + "(?:" + end + ")")
			}
		}
		return regexp.Compile(p)
	}
}

// lineBreaks are the line terminators before which some dialect's $ matches.
func lineBreaks() []string { return []string{"\n", "\r", "\r\n", "\u0085", "\u2028", "\u2029"} }

// formatSample is a valid value of a string format with a pattern, "" for
// the others.
func formatSample(f spec.Format) string {
	switch f {
	case spec.UUID:
		return "123e4567-e89b-12d3-a456-426614174000"
	case spec.CurrencyCode:
		return "CNY"
	case spec.Decimal2:
		return "-1234.50"
	}
	return ""
}

// formatValues are values to try a string format's schema with: good ones,
// each with every line break after it and before it, and a few bad ones.
func formatValues(f spec.Format) []string {
	good := []string{formatSample(f)}
	switch f {
	case spec.UUID:
		good = append(good, spec.NewUUID(1, 2), "123E4567-E89B-12D3-A456-426614174000")
	case spec.CurrencyCode:
		good = append(good, "USD")
	case spec.Decimal2:
		good = append(good, "0.00", "12.30")
	}
	out := slices.Clone(good)
	for _, v := range good {
		for _, nl := range lineBreaks() {
			out = append(out, v+nl, nl+v, v+nl+v, v+nl+nl)
		}
	}
	return append(out, "", " "+good[0], good[0]+" ", good[0]+"0", good[0][1:])
}

// stringFragments are the schemas of the string fields with a format that
// a document holds, one of each (as JSON), each with the format its
// pattern is; a pattern that is no format's fails the test.
func stringFragments(t *testing.T, name string, doc *obj) map[string]spec.Format {
	t.Helper()
	b, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	formats := map[string]spec.Format{}
	foreign := map[string]bool{}
	for _, f := range []spec.Format{spec.UUID, spec.CurrencyCode, spec.Decimal2, spec.UnixMillis} {
		if f.Pattern() != "" {
			formats[f.Pattern()] = f
		}
		if f.Foreign() != "" {
			foreign[f.Foreign()] = true
		}
	}
	out := map[string]spec.Format{}
	var visit func(v any, inNot bool)
	visit = func(v any, inNot bool) {
		switch v := v.(type) {
		case map[string]any:
			if p, ok := v["pattern"].(string); ok {
				switch {
				case inNot && foreign[p]:
				case formats[p] != "":
					b, err := json.Marshal(v)
					if err != nil {
						t.Fatal(err)
					}
					out[string(b)] = formats[p]
				default:
					t.Errorf("%s: pattern %s is none of the spec's formats: make it mean the same in every dialect, then let this test know it", name, p)
				}
			}
			for k, m := range v {
				visit(m, k == "not")
			}
		case []any:
			for _, m := range v {
				visit(m, false)
			}
		}
	}
	visit(v, false)
	return out
}

// exportedDocuments are every document whsim schema writes.
func exportedDocuments(t *testing.T) map[string]*obj {
	t.Helper()
	docs := map[string]*obj{"jsonschema": Bundle(spec.Events(), spec.Shapes())}
	var err error
	if docs["openapi"], err = OpenAPI(spec.Events()); err != nil {
		t.Fatal(err)
	}
	if docs["asyncapi"], err = AsyncAPI(spec.Events()); err != nil {
		t.Fatal(err)
	}
	return docs
}

// compileIn compiles a schema document (JSON) with a dialect's engine.
// Formats are not asserted, as by default in Python's jsonschema and most
// validators: the pattern and what goes with it must hold alone.
func compileIn(t *testing.T, d dialect, b []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(d.compile)
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("%s: compile: %v", d.name, err)
	}
	return sch
}

// TestPatternsMeanTheSameInEveryDialect: the schema of every string field
// with a format, as the JSON Schema, OpenAPI and AsyncAPI documents give
// it, accepts exactly the values spec.Valid does (whsim validate's check)
// in every dialect, line breaks after and before good values among them;
// and the pattern alone would not, in the dialects whose $ is lax, which
// is what the schemas' length or "not" is for.
func TestPatternsMeanTheSameInEveryDialect(t *testing.T) {
	t.Parallel()
	for name, doc := range exportedDocuments(t) {
		frags := stringFragments(t, name, doc)
		seen := map[spec.Format]bool{}
		for frag, f := range frags {
			seen[f] = true
			for _, d := range dialects() {
				sch := compileIn(t, d, []byte(frag))
				bare := compileIn(t, d, fmt.Appendf(nil, `{"type": "string", "pattern": %q}`, f.Pattern()))
				lets := 0
				for _, v := range formatValues(f) {
					want := spec.Valid(f, v)
					if got := sch.Validate(v) == nil; got != want {
						t.Errorf("%s, %s: %s accepts %q: %v, validate: %v", name, d.name, frag, v, got, want)
					}
					if bare.Validate(v) == nil && !want {
						lets++
					}
				}
				if d.lax && lets == 0 {
					t.Errorf("%s: the pattern %s alone refuses every value with a line break: the dialect is not what this test says", d.name, f.Pattern())
				}
				if !d.lax && lets > 0 {
					t.Errorf("%s: the pattern %s alone accepts %d bad values", d.name, f.Pattern(), lets)
				}
			}
		}
		for _, f := range []spec.Format{spec.UUID, spec.CurrencyCode, spec.Decimal2} {
			if !seen[f] {
				t.Errorf("%s: no field has the %s pattern", name, f)
			}
		}
	}
}

// TestLineBreaksRefusedInEveryDialect: over the fixtures with each string
// field with a format (an error of validate's) set to a good value, then to it with a line break
// after or before it, the bundle's schema of the event accepts exactly what
// whsim validate passes, in every dialect.
func TestLineBreaksRefusedInEveryDialect(t *testing.T) {
	t.Parallel()
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var corpus []mutant
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			raw, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			walk(spec.Body(e, s).Fields, nil, func(path []string, f spec.Field) {
				good := formatSample(f.Format)
				if good == "" || f.Advisory {
					// An advisory format is a warning of validate's,
					// which the schemas leave out.
					return
				}
				vals := []string{good}
				for _, nl := range lineBreaks() {
					vals = append(vals, good+nl, nl+good)
				}
				for _, val := range vals {
					doc := decode(t, raw)
					setPath(doc, path, val)
					b, err := json.Marshal(doc)
					if err != nil {
						t.Fatal(err)
					}
					corpus = append(corpus, mutant{Event: e.Name, Body: b, What: fmt.Sprintf("%s %s: %s = %q", e.Name, s, strings.Join(path, "."), val)})
				}
			})
		}
	}
	rejected := 0
	want := make([]bool, len(corpus))
	for i, m := range corpus {
		want[i] = !v.Failed(v.Check(m.Body, m.Event))
		if !want[i] {
			rejected++
		}
	}
	if rejected < len(corpus)/2 {
		t.Fatalf("validate rejects only %d of %d payloads: the corpus tests little", rejected, len(corpus))
	}
	for _, d := range dialects() {
		schemas := map[string]*jsonschema.Schema{}
		for _, e := range spec.Events() {
			b, err := Marshal(Bundle([]spec.Event{e}, spec.Shapes()))
			if err != nil {
				t.Fatal(err)
			}
			schemas[e.Name] = compileIn(t, d, b)
		}
		for i, m := range corpus {
			if got := schemas[m.Event].Validate(instance(t, m.Body)) == nil; got != want[i] {
				t.Errorf("%s: %s: schema accepts %v, validate passes %v", d.name, m.What, got, want[i])
			}
		}
	}
	t.Logf("%d payloads, %d rejected by validate, in %d dialects", len(corpus), rejected, len(dialects()))
}

// TestPatternsInJava runs the string fields' constraints of the exported
// documents (pattern, minLength, maxLength, the not's pattern) through
// java.util.regex (testdata/Patterns.java: find, as Java's JSON Schema
// validators call it) over the values of
// TestPatternsMeanTheSameInEveryDialect, and compares its verdicts with
// spec.Valid; and checks that the pattern alone lets a line break through
// there, as the dialect of that name in dialects says. It skips, saying
// so, without java.
func TestPatternsInJava(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: java compiles its program (a second or two)")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH: the java.util.regex test needs a JDK 11 or later")
	}
	t.Parallel()
	type fragment struct {
		Pattern   string `json:"pattern"`
		MinLength int    `json:"minLength"`
		MaxLength int    `json:"maxLength"`
		Not       struct {
			Pattern string `json:"pattern"`
		} `json:"not"`
	}
	type javaCase struct {
		line        string
		valid, bare bool
	}
	var cases []javaCase
	for name, doc := range exportedDocuments(t) {
		for frag, f := range stringFragments(t, name, doc) {
			var fr fragment
			if err := json.Unmarshal([]byte(frag), &fr); err != nil {
				t.Fatal(err)
			}
			for _, v := range formatValues(f) {
				// One case a line: pattern, minLength, maxLength, the not's
				// pattern (0 and "" for none) and the value, tab-separated,
				// the strings quoted.
				line := func(lo, hi int, not string) string {
					return fmt.Sprintf("%s\t%d\t%d\t%s\t%s", javaQuote(t, fr.Pattern), lo, hi, javaQuote(t, not), javaQuote(t, v))
				}
				cases = append(cases,
					javaCase{line: line(fr.MinLength, fr.MaxLength, fr.Not.Pattern), valid: spec.Valid(f, v)},
					javaCase{line: line(0, 0, ""), valid: spec.Valid(f, v), bare: true})
			}
		}
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.line + "\n")
	}
	file := filepath.Join(t.TempDir(), "cases.txt")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd := exec.Command(java, "testdata/Patterns.java", file)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java Patterns.java: %v\n%s", err, stderr.String())
	}
	got := strings.Fields(string(out))
	if len(got) != len(cases) {
		t.Fatalf("java: %d verdicts for %d cases\n%s", len(got), len(cases), stderr.String())
	}
	bareLets := 0
	for i, c := range cases {
		accepted := got[i] == "true"
		switch {
		case c.bare:
			if accepted && !c.valid {
				bareLets++
			}
		case accepted != c.valid:
			t.Errorf("java.util.regex: %s: accepts %v, validate: %v", c.line, accepted, c.valid)
		}
	}
	if bareLets == 0 {
		t.Error("java.util.regex: the patterns alone refuse every value with a line break: the test shows nothing")
	}
	t.Logf("java.util.regex: %d cases; the patterns alone would accept %d bad values", len(cases)/2, bareLets)
}

// javaQuote quotes s for Patterns.java: printable ASCII as itself, \n, \r,
// \t, \" and \\, and \uXXXX for the rest (within the Basic Multilingual
// Plane, as every value here is).
func javaQuote(t *testing.T, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			t.Fatalf("javaQuote(%q): a character beyond the BMP", s)
		}
	}
	b.WriteByte('"')
	return b.String()
}
