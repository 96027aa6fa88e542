// Command unexported lists (and with -w renames) the exported top-level
// names of a package that no other package names (issue #20).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/tools/go/packages"
)

func main() {
	write := flag.Bool("w", false, "rewrite")
	rename := flag.String("m", "", "rename these comma-separated `Type.Member`s of the one package named instead")
	flag.Parse()
	root, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t, err := loadTree(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *rename != "" {
		if err := renameMembers(os.Stdout, t, root, flag.Arg(1), strings.Split(*rename, ",")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	for _, rel := range flag.Args()[1:] {
		if err := run(os.Stdout, t, root, rel, *write); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func lower(s string) string {
	r := []rune(s)
	// ID -> id, URLFoo -> urlFoo
	i := 0
	for i < len(r) && unicode.IsUpper(r[i]) {
		i++
	}
	if i > 1 && i < len(r) {
		i--
	}
	for j := 0; j < i; j++ {
		r[j] = unicode.ToLower(r[j])
	}
	return string(r)
}

func run(w io.Writer, t *tree, root, rel string, write bool) error {
	p, err := loadPkg(root, rel)
	if err != nil {
		return err
	}
	name := p.Name
	dir := filepath.Join(root, rel)
	scope := p.Types.Scope()
	var exported []string
	for _, n := range scope.Names() {
		o := scope.Lookup(n)
		if !o.Exported() {
			continue
		}
		pos := p.Fset.Position(o.Pos())
		if strings.HasSuffix(pos.Filename, "_test.go") {
			continue
		}
		exported = append(exported, n)
	}
	var unused, dead []string
	for _, n := range exported {
		outside := t.named[p.PkgPath+"."+n]
		if !outside {
			// A file no package loaded (another build tag, another
			// module) has no types: a grep for pkg.N there must do.
			out, _ := exec.Command("grep", "-rlwE", "--include=*.go", name+`\.`+n, root).Output()
			for _, f := range strings.Fields(string(out)) {
				if t.loaded[f] {
					continue
				}
				if filepath.Dir(f) == dir {
					b, _ := os.ReadFile(f)
					if !bytes.Contains(b, []byte("package "+name+"_test")) {
						continue
					}
				}
				outside = true
			}
		}
		if !outside {
			unused = append(unused, n)
		}
	}
	// uses per object inside the package
	uses := map[types.Object][]*ast.Ident{}
	for id, o := range p.TypesInfo.Uses {
		uses[o] = append(uses[o], id)
	}
	edits := map[string][]edit{}
	renamed := 0
	for _, n := range unused {
		o := scope.Lookup(n)
		nn := lower(n)
		if len(uses[o]) == 0 {
			dead = append(dead, n)
		}
		if token.Lookup(nn).IsKeyword() || scope.Lookup(nn) != nil || types.Universe.Lookup(nn) != nil {
			fmt.Fprintf(w, "%s: skip %s (%s taken)\n", rel, n, nn)
			continue
		}
		ok := true
		ids := append([]*ast.Ident{}, uses[o]...)
		for id := range p.TypesInfo.Defs {
			if p.TypesInfo.Defs[id] == o {
				ids = append(ids, id)
			}
		}
		for _, id := range uses[o] {
			// would nn at this spot mean something else?
			s := innermost(p, id.Pos())
			if s != nil {
				if _, obj := s.LookupParent(nn, id.Pos()); obj != nil {
					ok = false
				}
			}
		}
		// a local declared with nn anywhere in scope of a use: also check file scopes via imports
		for _, f := range p.Syntax {
			for _, im := range f.Imports {
				in := ""
				if im.Name != nil {
					in = im.Name.Name
				} else {
					pp := strings.Trim(im.Path.Value, `"`)
					in = pp[strings.LastIndex(pp, "/")+1:]
				}
				if in == nn {
					ok = false
				}
			}
		}
		if !ok {
			fmt.Fprintf(w, "%s: skip %s (%s would be shadowed)\n", rel, n, nn)
			continue
		}
		// A field embedding type n is named n too, and is renamed with it:
		// its selectors and literal keys (x.N, T{N: v}) must follow.
		var fields []token.Position
		if tn, isType := o.(*types.TypeName); isType {
			why := ""
			for _, u := range t.fields[p.PkgPath+"."+n] {
				if u.pkg != p.PkgPath {
					why = fmt.Sprintf("its embedded field is named outside, at %s:%d", relTo(root, u.pos.Filename), u.pos.Line)
					break
				}
				if !slices.ContainsFunc(fields, func(q token.Position) bool { return q.Filename == u.pos.Filename && q.Offset == u.pos.Offset }) {
					fields = append(fields, u.pos) // once, though the package and its test variant both hold it
				}
			}
			if why == "" {
				why = embedders(p, tn, nn)
			}
			if why != "" {
				fmt.Fprintf(w, "%s: skip %s (%s)\n", rel, n, why)
				continue
			}
			if len(fields) > 0 {
				fmt.Fprintf(w, "%s: %s: embedded field renamed too, at %d uses\n", rel, n, len(fields))
			}
		}
		renamed++
		for _, id := range ids {
			pos := p.Fset.Position(id.Pos())
			edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, n, nn})
		}
		for _, pos := range fields {
			edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, n, nn})
		}
		// doc comment first word
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				var doc *ast.CommentGroup
				match := false
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == n {
						doc, match = d.Doc, true
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						switch sp := sp.(type) {
						case *ast.TypeSpec:
							if sp.Name.Name == n {
								doc, match = sp.Doc, true
								if doc == nil && len(d.Specs) == 1 {
									doc = d.Doc
								}
							}
						case *ast.ValueSpec:
							for _, vn := range sp.Names {
								if vn.Name == n {
									doc, match = sp.Doc, true
									if doc == nil && len(d.Specs) == 1 {
										doc = d.Doc
									}
								}
							}
						}
					}
				}
				if match && doc != nil {
					c := doc.List[0]
					if strings.HasPrefix(c.Text, "// "+n+" ") || strings.HasPrefix(c.Text, "// "+n+"\n") {
						pos := p.Fset.Position(c.Pos())
						edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset + 3, n, nn})
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "%s: exported %d, named outside %d, unexport %d, renamed %d; unused inside too: %v\n", rel, len(exported), len(exported)-len(unused), len(unused), renamed, dead)
	fmt.Fprintf(w, "%s: names: %v\n", rel, unused)
	fmt.Fprintf(w, "%s: exported fields and methods no other package names (not renamed: an interface, reflection or encoding/json may need them): %v\n", rel, members(p, t))
	if !write {
		return nil
	}
	return applyEdits(w, edits)
}

// loadPkg loads the package at rel with its in-package tests when it has
// them, so their uses are renamed too.
func loadPkg(root, rel string) (*packages.Package, error) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: root, Tests: true}
	pkgs, err := packages.Load(cfg, "./"+rel)
	if err != nil {
		return nil, err
	}
	var p *packages.Package
	for _, q := range pkgs {
		if strings.HasSuffix(q.ID, ".test]") && !strings.HasSuffix(q.PkgPath, "_test") {
			p = q
		}
	}
	if p == nil {
		for _, q := range pkgs {
			if !strings.HasSuffix(q.ID, "]") && !strings.HasSuffix(q.PkgPath, "_test") && !strings.HasSuffix(q.ID, ".test") {
				p = q
			}
		}
	}
	if p == nil {
		return nil, fmt.Errorf("%s: no package", rel)
	}
	if len(p.Errors) > 0 {
		return nil, fmt.Errorf("%s: %v", rel, p.Errors)
	}
	return p, nil
}

// embedders says why the fields embedding type tn cannot take the name
// nn, "" when they can: a struct tag (reflection, encoding/json, would
// then skip or refuse the field) or a field or method nn the embedding
// type already has.
func embedders(p *packages.Package, tn *types.TypeName, nn string) string {
	why := ""
	owners := map[*types.Struct]types.Type{}
	for id, o := range p.TypesInfo.Defs {
		if o, ok := o.(*types.TypeName); ok && o.Type() != nil && id != nil {
			if st, ok := o.Type().Underlying().(*types.Struct); ok {
				owners[st] = o.Type()
			}
		}
	}
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			sx, ok := n.(*ast.StructType)
			if !ok || why != "" {
				return why == ""
			}
			st, ok := p.TypesInfo.TypeOf(sx).(*types.Struct)
			if !ok {
				return true
			}
			for i := range st.NumFields() {
				fv := st.Field(i)
				if !fv.Embedded() || typeName(fv.Type()) != tn {
					continue
				}
				pos := p.Fset.Position(fv.Pos())
				if st.Tag(i) != "" {
					why = fmt.Sprintf("embedded with a tag at %s:%d", filepath.Base(pos.Filename), pos.Line)
					return false
				}
				var owner types.Type = st
				if t, ok := owners[st]; ok {
					owner = t
				}
				if o, _, _ := types.LookupFieldOrMethod(owner, true, p.Types, nn); o != nil {
					why = fmt.Sprintf("the type embedding it at %s:%d has %s already", filepath.Base(pos.Filename), pos.Line, nn)
					return false
				}
			}
			return true
		})
	}
	return why
}

// members lists the exported fields and methods of the package's
// exported types that no other package names.
func members(p *packages.Package, t *tree) []string {
	var out []string
	scope := p.Types.Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || !tn.Exported() || strings.HasSuffix(p.Fset.Position(tn.Pos()).Filename, "_test.go") {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		for i := range named.NumMethods() {
			m := named.Method(i)
			if m.Exported() && !t.member[declPos(p.Fset.Position(m.Pos()))] {
				out = append(out, n+"."+m.Name()+"()")
			}
		}
		if st, ok := named.Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				f := st.Field(i)
				if f.Exported() && !f.Embedded() && !t.member[declPos(p.Fset.Position(f.Pos()))] {
					out = append(out, n+"."+f.Name())
				}
			}
		}
	}
	return out
}

func relTo(root, f string) string {
	if r, err := filepath.Rel(root, f); err == nil {
		return r
	}
	return f
}

func innermost(p *packages.Package, pos token.Pos) *types.Scope {
	for _, f := range p.Syntax {
		if f.Pos() <= pos && pos <= f.End() {
			fs := p.TypesInfo.Scopes[f]
			if fs == nil {
				return nil
			}
			return fs.Innermost(pos)
		}
	}
	return nil
}

// edit replaces old, at byte off of a file, with new.
type edit struct {
	off      int
	old, new string
}

// applyEdits rewrites each file from its last edit to its first, so the
// offsets before an edit stay true; an offset named twice (a package and
// its test variant both hold it) is edited once, and one whose bytes are
// no longer old is reported and left.
func applyEdits(w io.Writer, edits map[string][]edit) error {
	for fn, es := range edits {
		b, err := os.ReadFile(fn)
		if err != nil {
			return err
		}
		sort.Slice(es, func(i, j int) bool { return es[i].off > es[j].off })
		last := -1
		for _, e := range es {
			if e.off == last {
				continue
			}
			last = e.off
			if string(b[e.off:e.off+len(e.old)]) != e.old {
				fmt.Fprintln(w, "mismatch", fn, e.off, e.old)
				continue
			}
			b = append(b[:e.off], append([]byte(e.new), b[e.off+len(e.old):]...)...)
		}
		if err := os.WriteFile(fn, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
