package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
)

// oapiCodegen is the oapi-codegen the code generation test runs, pinned.
const oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"

// TestOapiCodegenRoundTrip generates Go types with oapi-codegen from the
// OpenAPI document, in a module of their own, compiles them, and decodes
// every fixture into its shape's type (unknown fields refused) and encodes
// it again without loss. It needs the Go module proxy (go run downloads
// oapi-codegen and its runtime) and skips, saying so, without it. The
// document must keep its schemas from oapi-codegen's pruning by the
// generator's own option (skip-prune: webhooks are not walked), name the
// Chinese keys (x-go-name) and type money as double.
func TestOapiCodegenRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the code generation test downloads and builds oapi-codegen")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	dir := t.TempDir()
	doc, err := OpenAPI(spec.Events())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	var cases strings.Builder
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			// oapi-codegen's type name of the schema EVENT.shape.
			typ := strings.ReplaceAll(e.Name, "_", "") + strings.ToUpper(string(s)[:1]) + string(s)[1:]
			fmt.Fprintf(&cases, "\tcase %q:\n\t\tout, err = roundTrip[whtypes.%s](raw)\n", e.Name+"."+string(s)+".json", typ)
		}
	}
	files := map[string]string{
		"openapi.json": string(b),
		"cfg.yaml":     "package: whtypes\ngenerate:\n  models: true\noutput-options:\n  skip-prune: true\n",
		"go.mod":       "module roundtrip\n\ngo 1.22\n",
		"main.go":      strings.Replace(roundTripMain, "\t// CASES\n", cases.String(), 1),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			if strings.Contains(stderr, "dial tcp") || strings.Contains(stderr, "proxy.golang.org") && strings.Contains(stderr, "connect") {
				t.Skipf("the Go module proxy cannot be reached: %s", stderr)
			}
			t.Fatalf("go %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr)
		}
		return out
	}
	types := run("run", oapiCodegen, "-config", "cfg.yaml", "openapi.json")
	if err := os.MkdirAll(filepath.Join(dir, "whtypes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "whtypes", "types.go"), types, 0o644); err != nil {
		t.Fatal(err)
	}
	run("mod", "tidy")
	out := run("run", ".", fx)
	if got := strings.Count(string(out), "ok "); got != len(spec.Events())*len(spec.Shapes()) {
		t.Errorf("%d fixtures round-tripped, want %d:\n%s", got, len(spec.Events())*len(spec.Shapes()), out)
	}
}

// roundTripMain decodes each fixture into its generated type and encodes
// it again; the two must be the same JSON value.
const roundTripMain = `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"roundtrip/whtypes"
)

func main() {
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*.json"))
	if err != nil || len(files) == 0 {
		fmt.Println("no fixtures", err)
		os.Exit(1)
	}
	bad := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var out []byte
		switch filepath.Base(f) {
	// CASES
		default:
			fmt.Println("no type for", f)
			bad++
			continue
		}
		var a, b any
		_ = json.Unmarshal(raw, &a)
		_ = json.Unmarshal(out, &b)
		if err != nil || !reflect.DeepEqual(a, b) {
			fmt.Printf("LOST %s: %v\n%s\n", filepath.Base(f), err, out)
			bad++
			continue
		}
		fmt.Println("ok", filepath.Base(f))
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// roundTrip decodes raw into a T, refusing members T does not have, and
// encodes it again.
func roundTrip[T any](raw []byte) ([]byte, error) {
	var v T
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
`

// tsNegative is a fixture with one member changed so that its body type
// must refuse it: the negative controls of TestOpenAPITypeScript. The
// first member named key (depth first, keys in order) gets value, or is
// removed (del) or renamed (rename).
type tsNegative struct {
	fixture, key string
	value        any
	del          bool
	rename       string
	why          string
}

var tsNegatives = []tsNegative{
	{fixture: "CREATE_PURCHASE_ORDER_INVOICE.described.json", key: "price", value: "230.85", why: "money as a string"},
	{fixture: "AUDIT_PURCHASE_ORDER_INVOICE.sample.json", key: "status", value: "PASS", why: "the other shape's status type"},
	{fixture: "CREATE_RECEIVABLE_DOC.sample.json", key: "应收金额本位币-隐", value: 198306.44, why: "a hidden receipt field as a number"},
	{fixture: "CREATE_RECEIVABLE_DOC.described.json", key: "汇率", value: "1.0000", why: "a Chinese key's number as a string"},
	{fixture: "ABANDON_RECEIVABLE_DOC.sample.json", key: "收款跳转标志", value: "0", why: "a hidden receipt field's number as a string"},
	{fixture: "ABANDON_RECEIVABLE_DOC.sample.json", key: "businessType", value: 5007, why: "another event's number"},
	{fixture: "ABANDON_RECEIVABLE_DOC.described.json", key: "requestId", del: true, why: "no requestId"},
	{fixture: "AUDIT_PURCHASE_ORDER_INVOICE.described.json", key: "customerCode", rename: "enterpriseCode", why: "the other shape's member"},
}

// TestOpenAPITypeScript generates TypeScript types with openapi-typescript
// from the OpenAPI document and compiles, with tsc --strict, a file that
// declares each fixture as its webhook's body type: as its shape's
// component schema (an object literal, so tsc also refuses a member the
// type lacks), as the webhook's request body and as the root type
// --root-types names. Each negative control, a fixture with one member
// wrong, must fail to compile where the fixtures compile. Both tools are
// pinned in scripts/npm-validators.
func TestOpenAPITypeScript(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: openapi-typescript and tsc take seconds")
	}
	tools := npmTools(t)
	otsCLI := filepath.Join(tools, "node_modules", "openapi-typescript", "bin", "cli.js")
	tscCLI := filepath.Join(tools, "node_modules", "typescript", "bin", "tsc")
	for _, tool := range []struct{ name, cli string }{{"openapi-typescript", otsCLI}, {"typescript (tsc)", tscCLI}} {
		if _, err := os.Stat(tool.cli); err != nil {
			t.Skipf("%s is not installed in %s (scripts/install-tools.sh npm-validators)", tool.name, tools)
		}
	}
	dir := t.TempDir()
	p, _ := writeDoc(t, "openapi.json", OpenAPI)
	node(t, tools, otsCLI, p, "--root-types", "-o", filepath.Join(dir, "types.ts"))

	var pos strings.Builder
	pos.WriteString("import type * as api from \"./types\";\n\n")
	n := 0
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			raw, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			v := fmt.Sprintf("f%d", n)
			n++
			fmt.Fprintf(&pos, "// %s\nexport const %s: %s = %s;\n", fixtures.Name(e.Name, s), v, tsSchemaType(e, s), raw)
			fmt.Fprintf(&pos, "export const %sBody: %s = %s;\n", v, tsBodyType(e), v)
			fmt.Fprintf(&pos, "export const %sRoot: api.%s = %s;\n\n", v, tsRootType(e, s), v)
		}
	}
	files := []string{"fixtures.ts"}
	if err := os.WriteFile(filepath.Join(dir, "fixtures.ts"), []byte(pos.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	byFile := map[string]spec.Event{}
	shapeOf := map[string]spec.Shape{}
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			byFile[fixtures.Name(e.Name, s)] = e
			shapeOf[fixtures.Name(e.Name, s)] = s
		}
	}
	// wantAt is where tsc must find each negative control wrong: the
	// changed member's line (the declaration's for a removed one).
	var wantAt []string
	for i, neg := range tsNegatives {
		e, ok := byFile[neg.fixture]
		if !ok {
			t.Fatalf("negative control %d: no fixture %s", i, neg.fixture)
		}
		raw, err := fixtures.Get(e.Name, shapeOf[neg.fixture])
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var body any
		if err := d.Decode(&body); err != nil {
			t.Fatal(err)
		}
		if !tsMutate(body, neg) {
			t.Fatalf("negative control %d: %s has no member %s", i, neg.fixture, neg.key)
		}
		b, err := json.MarshalIndent(body, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("negative%d.ts", i)
		text := fmt.Sprintf("import type * as api from \"./types\";\n\n// %s: %s\nexport const bad: %s = %s;\n",
			neg.fixture, neg.why, tsSchemaType(e, shapeOf[neg.fixture]), b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		wantAt = append(wantAt, fmt.Sprintf("%s(%d,", name, tsLineOf(text, neg)))
	}

	// tsc exits non-zero on any error: the negative controls make sure of
	// that, so its report, one error a line, is what the test reads.
	cmd := exec.Command("node", append([]string{tscCLI, "--noEmit", "--strict", "--pretty", "false",
		"--target", "es2022", "--module", "nodenext"}, files...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("tsc: %v", err)
	}
	// An error names its file (file(line,col): error TSn: ...); one that
	// names none is about the command and fails the test like the others.
	errs := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		at, _, ok := strings.Cut(line, "error TS")
		if !ok {
			continue
		}
		f, _, _ := strings.Cut(at, "(")
		errs[strings.TrimSpace(f)] = append(errs[strings.TrimSpace(f)], line)
	}
	for f, lines := range errs {
		if !strings.HasPrefix(f, "negative") {
			t.Errorf("%q does not compile:\n%s", f, strings.Join(lines, "\n"))
		}
	}
	for i, neg := range tsNegatives {
		got := errs[fmt.Sprintf("negative%d.ts", i)]
		if len(got) == 0 {
			t.Errorf("negative control %d (%s, %s) compiles: the types accept it", i, neg.fixture, neg.why)
			continue
		}
		if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, wantAt[i]) }) {
			t.Errorf("negative control %d (%s, %s): no error at %s...:\n%s", i, neg.fixture, neg.why, wantAt[i], strings.Join(got, "\n"))
			continue
		}
		t.Logf("negative control %d (%s, %s) refused: %s", i, neg.fixture, neg.why, got[0])
	}
	if t.Failed() {
		t.Logf("tsc said:\n%s", out)
	}
}

// tsSchemaType is the TypeScript type openapi-typescript gives the
// component schema of event e's body in shape s.
func tsSchemaType(e spec.Event, s spec.Shape) string {
	return fmt.Sprintf("api.components[\"schemas\"][%q]", defName(e, s))
}

// tsBodyType is the type of the request body of event e's webhook.
func tsBodyType(e spec.Event) string {
	return fmt.Sprintf("api.operations[%q][\"requestBody\"][\"content\"][%q]", e.Name, spec.ContentType)
}

// tsRootType is the name --root-types gives the schema of event e's body in
// shape s: Schema and the component name's words in PascalCase.
func tsRootType(e spec.Event, s spec.Shape) string {
	var b strings.Builder
	b.WriteString("Schema")
	for _, w := range strings.FieldsFunc(defName(e, s), func(r rune) bool { return r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(w[:1]) + strings.ToLower(w[1:]))
	}
	return b.String()
}

// tsLineOf is the line of text (1-based) where tsc reports neg's change:
// the changed or renamed member's, or for a removed member the
// declaration's.
func tsLineOf(text string, neg tsNegative) int {
	want := "export const bad:"
	switch {
	case neg.rename != "":
		want = fmt.Sprintf("%q:", neg.rename)
	case !neg.del:
		v, _ := json.Marshal(neg.value)
		want = fmt.Sprintf("%q: %s", neg.key, v)
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, want) {
			return i + 1
		}
	}
	return 0
}

// tsMutate applies a negative control's change to the first member named
// its key, depth first with an object's keys sorted; it says whether it
// found one.
func tsMutate(v any, neg tsNegative) bool {
	switch v := v.(type) {
	case map[string]any:
		if old, ok := v[neg.key]; ok {
			switch {
			case neg.del:
				delete(v, neg.key)
			case neg.rename != "":
				delete(v, neg.key)
				v[neg.rename] = old
			default:
				v[neg.key] = neg.value
			}
			return true
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if tsMutate(v[k], neg) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if tsMutate(x, neg) {
				return true
			}
		}
	}
	return false
}
