package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the command layer may be
// (#31): a command's New reads command, flags, run, with its help text
// and flag groups named beside it, not inline.
const maxFuncLines = 80

// TestCommandLayerFunctionsShort fails on every function of internal/cli
// and its packages (tests aside: a test is one story) longer than
// maxFuncLines, naming it and its length.
func TestCommandLayerFunctionsShort(t *testing.T) {
	var long []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, fn := range funcLengths(fset, f) {
			if fn.lines > maxFuncLines {
				long = append(long, fmt.Sprintf("internal/cli/%s:%d: %s is %d lines", filepath.ToSlash(path), fn.line, fn.name, fn.lines))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(long) > 0 {
		t.Errorf("%d functions of the command layer are over %d lines: name the help text and group the flags beside them, or split by what each part does:\n%s",
			len(long), maxFuncLines, strings.Join(long, "\n"))
	}
}

// funcLength is one function of a file: its name as a reader finds it,
// "Name", "Recv.Name" or "(*Recv).Name" as in a method expression, the line of its func keyword, and its lines
// from there to its closing brace (its doc comment not counted).
type funcLength struct {
	name        string
	line, lines int
}

func funcLengths(fset *token.FileSet, f *ast.File) []funcLength {
	var out []funcLength
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			recv := receiverType(fd.Recv.List[0].Type)
			if strings.HasPrefix(recv, "*") {
				recv = "(" + recv + ")"
			}
			name = recv + "." + name
		}
		start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		out = append(out, funcLength{name: name, line: start, lines: end - start + 1})
	}
	return out
}

// receiverType is a method's receiver type as written, without its type
// parameters: *checkOptions, CheckSummary, *Set.
func receiverType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + receiverType(t.X)
	case *ast.IndexExpr:
		return receiverType(t.X)
	case *ast.IndexListExpr:
		return receiverType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return fmt.Sprintf("%T", e)
}

func TestFuncLengths(t *testing.T) {
	tests := []struct {
		name, src string
		want      []funcLength
	}{
		{"one line", "package p\nfunc f() {}\n", []funcLength{{"f", 2, 1}}},
		{
			"doc comment and help constant not counted",
			"package p\n\nconst help = `a\nb\nc`\n\n// g is g.\n// More.\nfunc g() string {\n\treturn help\n}\n",
			[]funcLength{{"g", 9, 3}},
		},
		{
			"methods named with their receiver",
			"package p\ntype T struct{}\ntype S[K any] struct{}\nfunc (t *T) a() {\n}\nfunc (T) b() {}\nfunc (s *S[K]) c() {\n\n}\n",
			[]funcLength{{"(*T).a", 4, 2}, {"T.b", 6, 1}, {"(*S).c", 7, 3}},
		},
		{"a declaration without a body is no function to measure", "package p\nfunc asm()\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", tt.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			got := funcLengths(fset, f)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("funcLengths = %v, want %v", got, tt.want)
			}
		})
	}
}
