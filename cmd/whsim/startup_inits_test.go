package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Nothing of whsim's own compiles a regexp or parses a template as a
// package-level variable: such work runs before main in every process,
// whsim --version included, whether the command needs it or not, and
// start-up is held to 2x a hello world (#35). Build it where it is used
// (sync.OnceValue when it is used often). A yaml error reader's two
// regexps were such work, added unnoticed.
func TestNoPackageLevelCompiles(t *testing.T) {
	eager := map[string]bool{"MustCompile": true, "MustCompilePOSIX": true, "Must": true, "MustParse": true}
	fset := token.NewFileSet()
	for _, root := range []string{"../../internal", "../../whsimtest", "."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						// Only a call made as the variable's value: one
						// inside a func literal (sync.OnceValue) waits.
						call, ok := v.(*ast.CallExpr)
						if !ok {
							continue
						}
						if sel, ok := call.Fun.(*ast.SelectorExpr); ok && eager[sel.Sel.Name] {
							if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "regexp" || pkg.Name == "template") {
								t.Errorf("%s: %s.%s at package level runs before main in every process", fset.Position(call.Pos()), pkg.Name, sel.Sel.Name)
							}
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
