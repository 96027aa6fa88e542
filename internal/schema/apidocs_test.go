package schema

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
)

// writeDoc writes a document to a temporary file and returns its path.
func writeDoc(t *testing.T, name string, build func([]spec.Event) (*obj, error)) (string, []byte) {
	t.Helper()
	doc, err := build(spec.Events())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b
}

// npmTools is where scripts/install-tools.sh npm-validators put the
// validators: $WHSIM_NPM_TOOLS, else the repository's .tools/npm. The
// test skips, saying so, when they or node are missing.
func npmTools(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH: the npm validator tests need it")
	}
	dir := os.Getenv("WHSIM_NPM_TOOLS")
	if dir == "" {
		root, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, ".tools", "npm")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@redocly", "cli")); err != nil {
		t.Skipf("the npm validators are not installed in %s (scripts/install-tools.sh npm-validators)", dir)
	}
	return dir
}

func node(t *testing.T, tools string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(tools, "node_modules"),
		// Redocly would phone home; this machine and CI have no network.
		"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %v: %v\n%s", args, err, out)
	}
	return out
}

func TestOpenAPIRedoclyLint(t *testing.T) {
	tools := npmTools(t)
	p, _ := writeDoc(t, "openapi.json", OpenAPI)
	out := node(t, tools, filepath.Join(tools, "node_modules", "@redocly", "cli", "bin", "cli.js"),
		"lint", "--format", "json", p)
	var res struct {
		Totals   struct{ Errors, Warnings int }
		Problems []struct {
			RuleID, Severity, Message string
		}
	}
	// Redocly prints its JSON report on stdout, notes around it.
	if i := bytes.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&res); err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
	for _, p := range res.Problems {
		if p.Severity == "error" {
			t.Errorf("redocly lint: %s: %s", p.RuleID, p.Message)
		}
	}
	if res.Totals.Errors != 0 {
		t.Errorf("redocly lint: %d errors", res.Totals.Errors)
	}
	t.Logf("redocly lint: %d errors, %d warnings", res.Totals.Errors, res.Totals.Warnings)
}

// TestOpenAPIParserAndAjv validates the OpenAPI document with
// @readme/openapi-parser and each fixture against the request body schema
// the document gives its event with Ajv (testdata/apidocs.cjs).
func TestOpenAPIParserAndAjv(t *testing.T) {
	tools := npmTools(t)
	p, _ := writeDoc(t, "openapi.json", OpenAPI)
	fx, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	out := node(t, tools, "testdata/apidocs.cjs", "openapi", p, fx)
	if !bytes.Contains(out, []byte("ajv: 8 fixtures valid")) || !bytes.Contains(out, []byte("@readme/openapi-parser: valid")) {
		t.Errorf("validators said:\n%s", out)
	}
}

func TestAsyncAPIParser(t *testing.T) {
	tools := npmTools(t)
	p, _ := writeDoc(t, "asyncapi.json", AsyncAPI)
	out := node(t, tools, "testdata/apidocs.cjs", "asyncapi", p)
	if !bytes.Contains(out, []byte("@asyncapi/parser: 0 errors")) {
		t.Errorf("@asyncapi/parser said:\n%s", out)
	}
}

// TestOpenAPIWebhooks checks the document's shape without node: a webhook
// per event with its query value, the fixtures as its examples, the body
// schema accepting each fixture (santhosh-tekuri/jsonschema) and refusing
// the other kind's.
func TestOpenAPIWebhooks(t *testing.T) {
	t.Parallel()
	_, b := writeDoc(t, "openapi.json", OpenAPI)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://whsim.dev/openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	hooks := doc["webhooks"].(map[string]any)
	if len(hooks) != len(spec.Events()) {
		t.Errorf("%d webhooks, want %d", len(hooks), len(spec.Events()))
	}
	for _, e := range spec.Events() {
		op, ok := hooks[e.Name].(map[string]any)["post"].(map[string]any)
		if !ok {
			t.Fatalf("no post webhook %s", e.Name)
		}
		q := op["parameters"].([]any)[0].(map[string]any)
		if q["name"] != spec.QueryParam || q["in"] != "query" || q["required"] != true ||
			q["schema"].(map[string]any)["const"] != e.Name {
			t.Errorf("%s: query parameter %v", e.Name, q)
		}
		content := op["requestBody"].(map[string]any)["content"].(map[string]any)[spec.ContentType].(map[string]any)
		sch, err := c.Compile("https://whsim.dev/openapi.json#/webhooks/" + e.Name + "/post/requestBody/content/application~1json/schema")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range spec.Shapes() {
			fb, _ := fixtures.Get(e.Name, s)
			var want, got any
			_ = json.Unmarshal(fb, &want)
			got = content["examples"].(map[string]any)[string(s)].(map[string]any)["value"]
			if gb, _ := json.Marshal(got); !bytes.Equal(gb, mustJSON(want)) {
				t.Errorf("%s %s: example is not the fixture", e.Name, s)
			}
			if err := sch.Validate(instance(t, fb)); err != nil {
				t.Errorf("%s %s: fixture refused: %v", e.Name, s, err)
			}
			for _, o := range spec.Events() {
				if o.Kind == e.Kind {
					continue
				}
				ob, _ := fixtures.Get(o.Name, s)
				if sch.Validate(instance(t, ob)) == nil {
					t.Errorf("%s accepts the %s fixture", e.Name, o.Name)
				}
			}
		}
		codes := slices.Sorted(maps.Keys(op["responses"].(map[string]any)))
		if !slices.Equal(codes, []string{"2XX", "3XX", "4XX", "5XX"}) {
			t.Errorf("%s: responses %v", e.Name, codes)
		}
	}
}

func TestAsyncAPIOperations(t *testing.T) {
	t.Parallel()
	_, b := writeDoc(t, "asyncapi.json", AsyncAPI)
	var doc struct {
		Operations map[string]struct {
			Action   string
			Bindings struct {
				HTTP struct {
					Method string
					Query  struct {
						Properties map[string]struct{ Const string }
					}
				}
			}
			Messages []map[string]string
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range spec.Events() {
		op, ok := doc.Operations[e.Name]
		if !ok {
			t.Fatalf("no operation %s", e.Name)
		}
		if op.Action != "send" || op.Bindings.HTTP.Method != spec.Method ||
			op.Bindings.HTTP.Query.Properties[spec.QueryParam].Const != e.Name || len(op.Messages) != len(spec.Shapes()) {
			t.Errorf("%s: %+v", e.Name, op)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestAnswersAreNotTheInterfaces checks that the documents do not pass
// whsim's reading of the answers off as the interface's: the spec shows no
// response and no retries ("not shown"), so where a document describes the
// answers it says so, and no answer tells what the ERP does.
func TestAnswersAreNotTheInterfaces(t *testing.T) {
	t.Parallel()
	_, ob := writeDoc(t, "openapi.json", OpenAPI)
	_, ab := writeDoc(t, "asyncapi.json", AsyncAPI)
	var openapi struct {
		Webhooks map[string]map[string]struct {
			Description string
			Responses   map[string]struct{ Description string }
		}
	}
	var asyncapi struct {
		Operations map[string]struct{ Description string }
	}
	if err := json.Unmarshal(ob, &openapi); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ab, &asyncapi); err != nil {
		t.Fatal(err)
	}
	for _, e := range spec.Events() {
		op := openapi.Webhooks[e.Name]["post"]
		if !strings.Contains(op.Description, answersNotShown) {
			t.Errorf("openapi %s: the description does not say the interface shows no answer: %q", e.Name, op.Description)
		}
		for code, r := range op.Responses {
			if strings.Contains(r.Description, "the ERP") {
				t.Errorf("openapi %s %s: tells what the ERP does, which the interface does not show: %q", e.Name, code, r.Description)
			}
		}
		d := asyncapi.Operations[e.Name].Description
		if !strings.Contains(d, answersNotShown) || strings.Contains(d, "the ERP follows") {
			t.Errorf("asyncapi %s: %q", e.Name, d)
		}
	}
}
