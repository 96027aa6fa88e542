package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbedded renames a type embedded in a struct of its package: the
// field's selectors and literal keys follow, and the module still builds.
// Types whose embedded field cannot follow are skipped with the reason.
func TestEmbedded(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go tool")
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module m\n\ngo 1.26\n",
		"a/a.go": `package a

// Result is renamed, and Case's field with it.
type Result struct{ N int }

type Case struct {
	File string
	*Result
}

func New() Case { return Case{File: "f", Result: &Result{N: 1}} }

func (c Case) Twice() int { return c.Result.N * 2 }

// Tagged is embedded with a tag: reflection reads the field's name.
type Tagged struct{ X int }

type Holder struct {
	Tagged ` + "`json:\"t\"`" + `
}

// Shared is embedded in Outer, whose field b names.
type Shared struct{ Y int }

type Outer struct{ *Shared }

// Helper is named by no package: d's a.Helper is a local variable's field.
const Helper = 1
`,
		"a/a_test.go": `package a

import "testing"

func TestCase(t *testing.T) {
	c := Case{Result: &Result{N: 2}}
	if c.Result.N != 2 || c.N != 2 {
		t.Fatal(c)
	}
	_ = Holder{Tagged: Tagged{X: 1}}
}
`,
		"b/b.go": `package b

import "m/a"

func N() int {
	c := a.New()
	o := a.Outer{}
	_ = o.Shared
	_ = a.Holder{}
	return c.N + c.Twice()
}
`,
		"d/d.go": `package d

func D() int {
	a := struct{ Helper int }{}
	return a.Helper
}
`,
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := loadTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(&out, tr, root, "a", true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"a: Result: embedded field renamed too, at 4 uses",
		"a: skip Tagged (embedded with a tag at a.go:",
		"a: skip Shared (its embedded field is named outside, at b/b.go:8)",
		"names: [Case Helper Result Shared Tagged]",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "a/a.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// result is renamed", "\t*result\n", "Case{File: \"f\", result: &result{N: 1}}", "c.result.N", "const helper = 1", "type Tagged", "type Shared"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("a.go lacks %q:\n%s", want, b)
		}
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet after the rename: %v\n%s", err, msg)
	}
	cmd = exec.Command("go", "test", "./a")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test after the rename: %v\n%s", err, msg)
	}
}

// TestMembers renames chosen fields and methods (-m) and refuses one
// another package names.
func TestMembers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go tool")
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module m\n\ngo 1.26\n",
		"a/a.go": `package a

type T struct {
	Count int
	Seen  int
}

func (t *T) Add() *T { t.Count++; return t }

func New() *T { return (&T{Count: 1}).Add() }
`,
		"b/b.go": `package b

import "m/a"

func B() int { return a.New().Seen }
`,
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := loadTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := renameMembers(&out, tr, root, "a", []string{"T.Seen"}); err == nil || !strings.Contains(err.Error(), "named by another package") {
		t.Errorf("renaming T.Seen, which b names: %v", err)
	}
	if err := renameMembers(&out, tr, root, "a", []string{"T.Count", "T.Add"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "a/a.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\tcount int", "func (t *T) add() *T { t.count++", "(&T{count: 1}).add()", "Seen  int"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("a.go lacks %q:\n%s", want, b)
		}
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet after the rename: %v\n%s", err, msg)
	}
}
