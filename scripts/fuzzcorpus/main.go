// Command fuzzcorpus writes the inputs of a Go fuzz corpus directory
// (testdata/fuzz/FuzzX, files in "go test fuzz v1" form) as plain files, so
// that a script can feed them to the real command line: scripts/same-behaviour.sh
// validates each one with two builds and compares what they say.
//
//	fuzzcorpus <corpus dir> <out dir>
//
// For each corpus file NAME it writes OUT/NAME, the first value's bytes
// (a []byte or string), and prints NAME on a line, the names sorted so that
// runs compare byte for byte. The other values are left out: FuzzCheck's
// event is mostly bytes no command line can carry (NUL among them), and a
// body validated without --event follows its own businessType.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: fuzzcorpus <corpus dir> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fuzzcorpus:", err)
		os.Exit(1)
	}
}

func run(corpusDir, outDir string, manifest io.Writer) error {
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			return err
		}
		values, err := parseCorpusFile(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		body, ok := values[0].([]byte)
		if !ok {
			return fmt.Errorf("%s: the first value is %T, want []byte or string", name, values[0])
		}
		if err := os.WriteFile(filepath.Join(outDir, name), body, 0o644); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(manifest, name); err != nil {
			return err
		}
	}
	return nil
}

// parseCorpusFile reads one file of the form testing.F writes: the header
// line, then one Go expression per value, as []byte("..."), string("..."),
// int(64), bool(true). The first value comes back as []byte (a string one
// too), the others as string, int64-as-string or bool; only the first two
// are used.
func parseCorpusFile(raw []byte) ([]any, error) {
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "go test fuzz v1" {
		return nil, errors.New(`not a "go test fuzz v1" file`)
	}
	var values []any
	for _, line := range lines[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := parseValue(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		if len(values) == 0 {
			if s, ok := v.(string); ok {
				v = []byte(s)
			}
			if b, ok := v.([]byte); ok {
				v = bytes.Clone(b)
			}
		}
		values = append(values, v)
	}
	if len(values) == 0 {
		return nil, errors.New("no values")
	}
	return values, nil
}

func parseValue(line string) (any, error) {
	expr, err := parser.ParseExpr(line)
	if err != nil {
		return nil, err
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, errors.New("want type(value)")
	}
	typ := ""
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		typ = fun.Name
	case *ast.ArrayType:
		if elt, ok := fun.Elt.(*ast.Ident); ok && fun.Len == nil && elt.Name == "byte" {
			typ = "[]byte"
		}
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok {
		if id, ok := call.Args[0].(*ast.Ident); ok && typ == "bool" {
			return id.Name == "true", nil
		}
		// a negative number: -64
		if u, ok := call.Args[0].(*ast.UnaryExpr); ok && u.Op == token.SUB {
			if l, ok := u.X.(*ast.BasicLit); ok {
				return "-" + l.Value, nil
			}
		}
		return nil, errors.New("want a literal")
	}
	switch typ {
	case "[]byte":
		s, err := strconv.Unquote(lit.Value)
		return []byte(s), err
	case "string":
		return strconv.Unquote(lit.Value)
	default: // numbers, runes and bytes: the literal as written
		return lit.Value, nil
	}
}
