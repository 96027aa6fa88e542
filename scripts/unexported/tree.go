package main

import (
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"
)

// tree is what the module's packages (tests and external test packages
// included) name of each other, from go/types rather than a grep, so a
// local variable that shares a package's name (payload.Len with payload a
// []byte) does not keep a name exported.
type tree struct {
	loaded map[string]bool         // files type-checked in some package
	named  map[string]bool         // "path.Name" named by another package
	fields map[string][]fieldUse   // "path.T": selectors and literal keys naming an embedded field of type T
	member map[token.Position]bool // declarations of fields and methods another package names
}

// fieldUse is one use of an embedded field by its name: x.T or T{T: v}.
// An embedded field's name is its type's name, so renaming T renames the
// field, and every such use must follow (or, outside T's package, it
// could not: the field would be unexported there).
type fieldUse struct {
	pos token.Position
	pkg string // path of the package holding the use
}

func loadTree(root string) (*tree, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Dir:   root,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	t := &tree{loaded: map[string]bool{}, named: map[string]bool{}, fields: map[string][]fieldUse{}, member: map[token.Position]bool{}}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.ID, p.Errors)
		}
		for _, f := range p.GoFiles {
			t.loaded[f] = true
		}
		for id, o := range p.TypesInfo.Uses {
			if o.Pkg() == nil {
				continue
			}
			if member(o) && o.Pkg().Path() != p.PkgPath {
				t.member[declPos(p.Fset.Position(o.Pos()))] = true
			}
			if v, ok := o.(*types.Var); ok && v.IsField() {
				if v.Embedded() {
					if tn := typeName(v.Type()); tn != nil && tn.Name() == v.Name() && tn.Pkg() != nil {
						k := tn.Pkg().Path() + "." + v.Name()
						t.fields[k] = append(t.fields[k], fieldUse{p.Fset.Position(id.Pos()), p.PkgPath})
					}
				}
				continue
			}
			if f, ok := o.(*types.Func); ok && f.Signature().Recv() != nil {
				continue
			}
			// Locals and labels belong to the package using them, so
			// another package's object here is one of its top-level names.
			if o.Pkg().Path() != p.PkgPath {
				t.named[o.Pkg().Path()+"."+o.Name()] = true
			}
		}
	}
	return t, nil
}

// typeName is the type name an embedded field's type denotes (T or *T),
// an alias's own name for an alias, as the field is named after it.
func typeName(t types.Type) *types.TypeName {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := t.(type) {
	case *types.Named:
		return t.Obj()
	case *types.Alias:
		return t.Obj()
	}
	return nil
}

// member reports whether o is a field or a method.
func member(o types.Object) bool {
	switch o := o.(type) {
	case *types.Var:
		return o.IsField()
	case *types.Func:
		return o.Signature().Recv() != nil
	}
	return false
}

// declPos is a declaration's place by file and line:column, the same
// whether the object came from source or export data.
func declPos(p token.Position) token.Position {
	return token.Position{Filename: p.Filename, Line: p.Line, Column: p.Column}
}
