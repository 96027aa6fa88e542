package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// mutant is one payload of the mutated corpus: the event it is sent
// with, the body, and what was done to the fixture it came from.
type mutant struct {
	Event string          `json:"event"`
	Body  json.RawMessage `json:"body"`
	What  string          `json:"what"`
}

// mutants builds the corpus from the spec's tables: every fixture (each
// event in each shape), and for every field the model gives it (at every
// depth, the first element of arrays) a value of each wrong JSON type,
// null, the field removed, values that break its format or its closed
// enumeration, and, for receipts, the hidden fields of the sample shape
// added to the described body with right and wrong values. The invoice
// status of the other shape's type, and the other events' body numbers,
// are among them.
func mutants(t testing.TB) []mutant {
	t.Helper()
	var out []mutant
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			raw, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			add := func(what string, f func(doc map[string]any)) {
				doc := decode(t, raw)
				f(doc)
				b, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, mutant{Event: e.Name, Body: b, What: fmt.Sprintf("%s %s: %s", e.Name, s, what)})
			}
			add("unchanged", func(map[string]any) {})
			body := spec.Body(e, s)
			walk(body.Fields, nil, func(path []string, f spec.Field) {
				p := strings.Join(path, ".")
				for _, v := range wrongValues(f) {
					add(fmt.Sprintf("%s = %s", p, show(v)), func(doc map[string]any) { setPath(doc, path, v) })
				}
				add(p+" removed", func(doc map[string]any) { setPath(doc, path, del) })
			})
			for _, n := range spec.BodyNumbers() {
				add(fmt.Sprintf("businessType = %d", n), func(doc map[string]any) { doc[spec.FieldBusinessType] = json.Number(fmt.Sprint(n)) })
				// The same number written with a fraction or an exponent.
				add(fmt.Sprintf("businessType = %d.0", n), func(doc map[string]any) { doc[spec.FieldBusinessType] = json.Number(fmt.Sprintf("%d.0", n)) })
				add(fmt.Sprintf("businessType = %de0", n), func(doc map[string]any) { doc[spec.FieldBusinessType] = json.Number(fmt.Sprintf("%de0", n)) })
			}
			if e.Kind == spec.Receipt && s == spec.Described {
				// The hidden fields, which only the sample shape has, in a
				// described body: validate types them all the same.
				walk(spec.Body(e, spec.Sample).Fields, nil, func(path []string, f spec.Field) {
					if !f.Hidden {
						return
					}
					p := strings.Join(path, ".")
					for _, v := range append(wrongValues(f), rightValue(f)) {
						add(fmt.Sprintf("hidden %s = %s", p, show(v)), func(doc map[string]any) { setPath(doc, path, v) })
					}
				})
			}
			if e.Kind == spec.Invoice {
				evidenceTaken(e, s, add)
			}
			// The data members of the other invoice shape and of the
			// other document kind: null, which validate reads as absent
			// (so it mixes no shapes and is no receipt member in an
			// invoice), and a value of each wrong type (an unknown field
			// of this document, except where it is an error already: a
			// marker of the other shape, a receipt member in an invoice).
			own := spec.Data(e.Kind, s)
			seen := map[string]bool{}
			for _, k := range []spec.Kind{spec.Invoice, spec.Receipt} {
				for _, other := range spec.Shapes() {
					for _, f := range spec.Data(k, other).Fields {
						if _, ok := own.Member(f.Name); ok || seen[f.Name] {
							continue
						}
						seen[f.Name] = true
						path := []string{spec.FieldData, f.Name}
						for _, v := range wrongValues(f) {
							add(fmt.Sprintf("foreign data.%s = %s", f.Name, show(v)), func(doc map[string]any) { setPath(doc, path, v) })
						}
					}
				}
			}
		}
	}
	return out
}

// evidenceTaken adds, for an invoice fixture of shape s, the mutants whose
// shape validate --shape auto can no longer read from the status: the
// fixture without its status (its markers tell the shape), and without
// status and markers under each of the event's body numbers (the number
// tells: 4000 the sample shape, any other the described one), each also
// with every wrong value of every field it still has. A schema that takes
// either shape must hold such a body to the shape validate reads, not let
// it pass as the other one, whose schema does not know that shape's fields.
func evidenceTaken(e spec.Event, s spec.Shape, add func(string, func(map[string]any))) {
	var markers []string
	for _, sh := range spec.Shapes() {
		for _, f := range spec.Data(spec.Invoice, sh).Fields {
			if f.Marker {
				markers = append(markers, f.Name)
			}
		}
	}
	type base struct {
		what   string
		strip  []string
		number int
	}
	bases := []base{{"without status", []string{spec.FieldStatus}, 0}}
	for _, n := range e.Numbers() {
		bases = append(bases, base{fmt.Sprintf("without status and markers, businessType %d", n), append([]string{spec.FieldStatus}, markers...), n})
	}
	for _, b := range bases {
		strip := func(doc map[string]any) {
			data := doc[spec.FieldData].(map[string]any)
			for _, n := range b.strip {
				delete(data, n)
			}
			if b.number != 0 {
				doc[spec.FieldBusinessType] = json.Number(fmt.Sprint(b.number))
			}
		}
		add(b.what, strip)
		walk(spec.Data(spec.Invoice, s).Fields, []string{spec.FieldData}, func(path []string, f spec.Field) {
			if slices.Contains(b.strip, path[1]) {
				return // taken away: a value would put it back
			}
			p := strings.Join(path, ".")
			for _, v := range wrongValues(f) {
				add(fmt.Sprintf("%s: %s = %s", b.what, p, show(v)), func(doc map[string]any) {
					strip(doc)
					setPath(doc, path, v)
				})
			}
		})
	}
}

// walk calls fn with the path of every field, depth first; an array's
// members are those of its first element.
func walk(fields []spec.Field, path []string, fn func([]string, spec.Field)) {
	for _, f := range fields {
		p := append(slices.Clone(path), f.Name)
		fn(p, f)
		switch {
		case f.Type == spec.Object && len(f.Fields) > 0:
			walk(f.Fields, p, fn)
		case f.Type == spec.Array && len(f.Fields) > 0:
			walk(f.Fields, append(p, "0"), fn)
		}
	}
}

// wrongValues are values that break f: each JSON type f does not have,
// null, and values of the right type that break its format or enum.
func wrongValues(f spec.Field) []any {
	all := map[spec.Type]any{
		spec.String: "x", spec.Number: json.Number("1.5"), spec.Integer: json.Number("7"), spec.Boolean: true,
		spec.Object: map[string]any{}, spec.Array: []any{},
	}
	var out []any
	for _, typ := range []spec.Type{spec.String, spec.Number, spec.Integer, spec.Boolean, spec.Object, spec.Array} {
		if typ == f.Type || (f.Type == spec.Number && typ == spec.Integer) {
			continue
		}
		out = append(out, all[typ])
	}
	out = append(out, nil)
	switch f.Format {
	case spec.UUID:
		out = append(out, "not-a-uuid", "6F9619FF-8B86-D011-B42D-00C04FC964FF0")
	case spec.CurrencyCode:
		out = append(out, "cny", "PRE001", "CN")
	case spec.Decimal2:
		out = append(out, "1.5", "1,234.00", "-0.10", "12")
	case spec.UnixMillis:
		// Integers written with an exponent or a fraction, which JSON
		// Schema's integer takes (a number whose value has no fractional
		// part), and fractions written with an exponent. Not here:
		// 1e-999 and 1.0000000000000000001, which doubles make whole
		// (docs/validation.md; TestIntegerWrittenOtherwise).
		out = append(out, json.Number("-1"), json.Number("1.5"), json.Number("1e3"), json.Number("-0"),
			json.Number("1.0"), json.Number("1E3"), json.Number("10e-1"), json.Number("-0.0"), json.Number("0e-5"),
			json.Number("1792512000000.000"), json.Number("1.7925120000005e12"), json.Number("15e-1"))
	}
	if f.Type == spec.Number {
		// Beyond a double's range: Python's json and JavaScript read
		// them as infinity, which their "number" (Ajv's with strict
		// off) takes; a validator reading numbers exactly takes them
		// too. Validate refuses them. (An integer field's 1e400 is a
		// difference docs/validation.md names.)
		out = append(out, json.Number("1e400"), json.Number("-1e400"))
	}
	if v := formatSample(f.Format); v != "" {
		// A good value with a line break after it, which $ lets through in
		// Python's re and java.util.regex (dialects_test.go).
		out = append(out, v+"\n", v+"\r\n", v+"\u2028")
	}
	if f.Closed && f.Type == spec.String {
		out = append(out, "INVENTED", strings.ToLower(f.Values[0].Name))
	}
	if f.Name == spec.FieldStatus {
		// The status of the other shape's type.
		out = append(out, "PASS", "REFUSAL", json.Number("1"), json.Number("2"))
	}
	if f.Type == spec.Object && f.Elem != "" {
		out = append(out, map[string]any{"颜色": json.Number("1")})
	}
	if f.Type == spec.Array {
		out = append(out, []any{"x"}, []any{nil})
	}
	return out
}

// rightValue is a value of f's type and format.
func rightValue(f spec.Field) any {
	switch {
	case f.Format == spec.Decimal2:
		return "12.30"
	case f.Type == spec.String:
		return "x"
	case f.Type == spec.Integer:
		return json.Number("7")
	case f.Type == spec.Number:
		return json.Number("1.5")
	case f.Type == spec.Boolean:
		return true
	}
	return nil
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func decode(t testing.TB, b []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// setPath sets (or with del removes) the value at path, making the
// objects on the way when they are missing.
func setPath(doc map[string]any, path []string, v any) {
	var cur any = doc
	for i, p := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if v == del {
					delete(c, p)
				} else {
					c[p] = v
				}
				return
			}
			if _, ok := c[p]; !ok {
				c[p] = map[string]any{}
			}
			cur = c[p]
		case []any:
			var n int
			fmt.Sscan(p, &n)
			if n >= len(c) {
				return
			}
			if last {
				if v != del {
					c[n] = v
				}
				return
			}
			cur = c[n]
		default:
			return
		}
	}
}

// TestShapeSchemasAgreeWithValidateShape: whsim schema --event E --shape S
// (For) accepts exactly the payloads validate --shape S passes, over the
// mutated corpus (santhosh-tekuri/jsonschema): a body of the other shape is
// held to S by both, its status of the other type refused by both, its
// fields of the other shape unknown (a warning) to validate and allowed by
// the schema. The help promises "the schema of that one body"; the test
// above holds only the schemas of both shapes against auto.
func TestShapeSchemasAgreeWithValidateShape(t *testing.T) {
	t.Parallel()
	corpus := mutants(t)
	for _, s := range spec.Shapes() {
		v, err := validate.New(validate.Options{Shape: string(s)})
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]*jsonschema.Schema{}
		for _, e := range spec.Events() {
			schemas[e.Name] = compile(t, For(e, s))
		}
		rejected := 0
		for _, m := range corpus {
			fs := v.Check(m.Body, m.Event)
			want := !v.Failed(fs)
			if !want {
				rejected++
			}
			if got := schemas[m.Event].Validate(instance(t, m.Body)) == nil; got != want {
				t.Errorf("--shape %s: %s: schema accepts %v, validate passes %v %s", s, m.What, got, want, findings(fs))
			}
		}
		t.Logf("--shape %s: %d payloads, %d rejected by validate", s, len(corpus), rejected)
	}
}

// TestSchemasAgreeWithValidate: over the mutated corpus, the schema of
// each event (both shapes, as a webhook's request body gives them) accepts
// exactly the payloads validate passes, with santhosh-tekuri/jsonschema and,
// where node and the npm validators are installed, Ajv (2020-12). The
// corpus has no duplicate key: JSON Schema sees parsed JSON, where the
// second value has replaced the first.
func TestSchemasAgreeWithValidate(t *testing.T) {
	t.Parallel()
	corpus := mutants(t)
	if len(corpus) < 800 {
		t.Fatalf("the corpus has %d payloads, want at least 800", len(corpus))
	}
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, e := range spec.Events() {
		schemas[e.Name] = compile(t, Bundle([]spec.Event{e}, spec.Shapes()))
	}
	want := make([]bool, len(corpus))
	rejected := 0
	for i, m := range corpus {
		fs := v.Check(m.Body, m.Event)
		want[i] = !v.Failed(fs)
		if !want[i] {
			rejected++
		}
		for _, f := range fs {
			if f.Rule == "duplicate-key" {
				t.Fatalf("%s: a duplicate key in the corpus", m.What)
			}
		}
		got := schemas[m.Event].Validate(instance(t, m.Body)) == nil
		if got != want[i] {
			t.Errorf("santhosh-tekuri: %s: schema accepts %v, validate passes %v %s", m.What, got, want[i], findings(fs))
		}
	}
	t.Logf("%d payloads, %d rejected by validate", len(corpus), rejected)
	if rejected < len(corpus)/2 {
		t.Errorf("only %d of %d payloads are rejected: the corpus tests little", rejected, len(corpus))
	}

	t.Run("ajv", func(t *testing.T) { ajvAgrees(t, corpus, want) })
	t.Run("python", func(t *testing.T) { pythonAgrees(t, corpus, want) })
}

// writeCorpus writes the bundle of every event's schema and the corpus as
// JSON files in a temporary directory and returns their paths.
func writeCorpus(t *testing.T, corpus []mutant) (schemaFile, corpusFile string) {
	t.Helper()
	dir := t.TempDir()
	doc, err := Marshal(Bundle(spec.Events(), spec.Shapes()))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := json.Marshal(corpus)
	if err != nil {
		t.Fatal(err)
	}
	schemaFile, corpusFile = filepath.Join(dir, "schema.json"), filepath.Join(dir, "corpus.json")
	for name, b := range map[string][]byte{schemaFile: doc, corpusFile: cb} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return schemaFile, corpusFile
}

// ajvAgrees runs Ajv (2020-12) over the corpus (testdata/agree.cjs) and
// compares its verdicts with validate's (want); it skips, saying so, where
// node or the npm validators are missing.
func ajvAgrees(t *testing.T, corpus []mutant, want []bool) {
	tools := npmTools(t)
	schemaFile, corpusFile := writeCorpus(t, corpus)
	script, err := filepath.Abs("testdata/agree.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, schemaFile, corpusFile)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(tools, "node_modules"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node agree.cjs: %v\n%s", err, out)
	}
	var ajv []bool
	if err := json.Unmarshal(out, &ajv); err != nil || len(ajv) != len(corpus) {
		t.Fatalf("ajv: %v: %d verdicts for %d payloads", err, len(ajv), len(corpus))
	}
	for i, m := range corpus {
		if ajv[i] != want[i] {
			t.Errorf("ajv: %s: schema accepts %v, validate passes %v", m.What, ajv[i], want[i])
		}
	}
}

// pythonAgrees runs Python's jsonschema (Draft202012Validator) over the
// corpus (testdata/agree.py), as it validates by default (format is an
// annotation) and with its FormatChecker, and compares both lists of
// verdicts with validate's (want). It skips, saying so, where no python3
// imports jsonschema 4 or later.
func pythonAgrees(t *testing.T, corpus []mutant, want []bool) {
	py := pythonJSONSchema(t)
	schemaFile, corpusFile := writeCorpus(t, corpus)
	var stderr bytes.Buffer
	cmd := exec.Command(py, "testdata/agree.py", schemaFile, corpusFile)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s agree.py: %v\n%s", py, err, stderr.Bytes())
	}
	var got map[string][]bool
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("agree.py: %v", err)
	}
	for _, mode := range []string{"plain", "formats"} {
		if len(got[mode]) != len(corpus) {
			t.Fatalf("python jsonschema (%s): %d verdicts for %d payloads", mode, len(got[mode]), len(corpus))
		}
		for i, m := range corpus {
			if got[mode][i] != want[i] {
				t.Errorf("python jsonschema (%s): %s: schema accepts %v, validate passes %v", mode, m.What, got[mode][i], want[i])
			}
		}
	}
}

// pythonJSONSchema is a Python interpreter that imports jsonschema 4 or
// later (Draft202012Validator):
// $WHSIM_PYTHON if set, else python3 on PATH or Debian's /usr/bin/python3
// (where scripts/install-tools.sh python-jsonschema installs it). The test
// skips, saying so, when none does.
func pythonJSONSchema(t *testing.T) string {
	t.Helper()
	candidates := []string{"python3", "/usr/bin/python3"}
	if py := os.Getenv("WHSIM_PYTHON"); py != "" {
		candidates = []string{py}
	}
	var tried []string
	for _, py := range candidates {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		tried = append(tried, path)
		if exec.Command(path, "-c", "from jsonschema import Draft202012Validator").Run() == nil {
			return path
		}
	}
	if len(tried) == 0 {
		t.Skipf("no %s: the Python jsonschema test needs it", strings.Join(candidates, " or "))
	}
	t.Skipf("python jsonschema 4 or later (draft 2020-12) is not installed for %s (scripts/install-tools.sh python-jsonschema, or pip install jsonschema)", strings.Join(tried, ", "))
	return ""
}

func findings(fs []validate.Finding) string {
	var b []string
	for _, f := range fs {
		b = append(b, string(f.Severity)+" "+f.Rule+" "+f.Path)
	}
	return "[" + strings.Join(b, "; ") + "]"
}

// TestAjvStrictModeQuiet compiles every JSON Schema document whsim schema
// prints with Ajv in its default strict mode, as the ajv-cli command of
// whsim schema --help runs it (testdata/strict.cjs): Ajv must log nothing,
// since it prints each strict-mode message on stderr at every run. It skips,
// saying so, where node or the npm validators are missing.
func TestAjvStrictModeQuiet(t *testing.T) {
	tools := npmTools(t)
	dir := t.TempDir()
	docs := map[string]*obj{"bundle": Bundle(spec.Events(), spec.Shapes())}
	for _, e := range spec.Events() {
		docs[e.Name] = Bundle([]spec.Event{e}, spec.Shapes())
		for _, s := range spec.Shapes() {
			docs[defName(e, s)] = For(e, s)
		}
	}
	for _, s := range spec.Shapes() {
		docs["all."+string(s)] = Bundle(spec.Events(), []spec.Shape{s})
	}
	var files []string
	for name, doc := range docs {
		b, err := Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	slices.Sort(files)
	cmd := exec.Command("node", append([]string{"testdata/strict.cjs"}, files...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(tools, "node_modules"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node strict.cjs: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("compiled %d\n", len(files)); string(out) != want {
		t.Errorf("Ajv's strict mode said:\n%s", out)
	}
}
