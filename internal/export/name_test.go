package export

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCheckName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"whsim", true},
		{"load-test-2", true},
		{"0abc", true},
		{strings.Repeat("a", 51), true},
		{strings.Repeat("a", 52), false}, // "-initializer" would make 64
		{strings.Repeat("a", 63), false},
		{"", false},
		{"Load", false},
		{"-load", false},
		{"load-", false},
		{"a.b", false},
		{"a_b", false},
		{"x\nkind: Secret", false},
		{"$(touch pwned)", false},
		{"a b", false},
		{"a'b", false},
	}
	for _, tt := range tests {
		err := checkName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "DNS-1123") {
			t.Errorf("CheckName(%q) = %q, want it to say DNS-1123", tt.name, err)
		}
	}
	c := validK6Config()
	c.Name = "x\nkind: Secret"
	if err := c.Check(); err == nil || !strings.HasPrefix(err.Error(), "--name ") {
		t.Errorf("Check() of a name with a newline = %v, want a --name error", err)
	}
}

// Whatever the name and file names hold, the manifest is one YAML
// document, one TestRun, holding them as values.
func TestK6TestRunEncodes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"load", "x\nkind: Secret\n---\napiVersion: v1", "a: b", "'\"#"} {
		var out bytes.Buffer
		o := testRunOptions{Name: name, Script: "s\ncript.js", DataFile: "data.json", Parallelism: 3, Sign: true}
		if err := k6TestRun(&out, o); err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(&out)
		var m struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				Parallelism int
				Script      struct {
					ConfigMap struct{ Name, File string } `yaml:"configMap"`
				}
			}
		}
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("name %q: %v\n%s", name, err, out.String())
		}
		if m.Kind != "TestRun" || m.Metadata.Name != name || m.Spec.Script.ConfigMap.Name != name ||
			m.Spec.Script.ConfigMap.File != o.Script || m.Spec.Parallelism != 3 {
			t.Errorf("name %q: decoded %+v", name, m)
		}
		if err := dec.Decode(new(any)); !errors.Is(err, io.EOF) {
			t.Errorf("name %q: a second document: %v", name, err)
		}
	}
}
