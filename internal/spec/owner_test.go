package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The spec owns the name businessType, as the query parameter (QueryParam,
// read by QueryEvent) and as the body member (FieldBusinessType): a copy
// of the word elsewhere is a second parser that drifts from this one, as
// five did after #20 removed them. Only string literals count, so prose
// in comments and in help text that shows a URL stays free.
func TestBusinessTypeNamedOnlyHere(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	checked := 0
	for _, dir := range []string{"internal", "cmd", "whsimtest"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || path == filepath.Join(root, "internal", "spec") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			checked++
			for _, pos := range businessTypeLiterals(t, path) {
				t.Errorf("%s: the literal %q: use spec.QueryParam (the query) or spec.FieldBusinessType (the body)", pos, "businessType")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The walk read the tree, not an empty or moved one: the test could
	// otherwise pass on nothing.
	if checked < 100 {
		t.Fatalf("read %d Go files under internal, cmd and whsimtest, want the module's hundreds", checked)
	}
}

// businessTypeLiterals returns where a file's string literals name
// businessType: the word alone ("businessType"), as a JSON member
// (`"businessType"`) inside a longer one, or a query that starts with it.
func businessTypeLiterals(t *testing.T, path string) []token.Position {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var found []token.Position
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
		}
		if names(v) {
			found = append(found, fset.Position(lit.Pos()))
		}
		return true
	})
	return found
}

// names says whether a string literal's value names businessType as code
// reads or writes it, not as prose shows it (send's help shows the call
// as POST <url>?businessType=<EVENT>).
func names(v string) bool {
	return v == QueryParam || strings.Contains(v, `"`+QueryParam+`"`) || strings.HasPrefix(v, QueryParam+"=")
}

func TestNamesBusinessType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"businessType", true},
		{`{"businessType":5007}`, true},
		{"businessType=CREATE_RECEIVABLE_DOC", true},
		{"POST <url>?businessType=<EVENT>", false},
		{"the query has businessType already", false},
		{"POST <url> with the event in businessType", false},
		{"businessTypes", false},
	} {
		if got := names(tc.v); got != tc.want {
			t.Errorf("names(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
