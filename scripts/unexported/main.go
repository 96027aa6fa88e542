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
	"os"
	"os/exec"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/tools/go/packages"
)

func main() {
	write := flag.Bool("w", false, "rewrite")
	flag.Parse()
	root := flag.Arg(0)
	for _, rel := range flag.Args()[1:] {
		run(root, rel, *write)
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

func run(root, rel string, write bool) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: root, Tests: true}
	pkgs, err := packages.Load(cfg, "./"+rel)
	if err != nil {
		panic(err)
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
	if len(p.Errors) > 0 {
		fmt.Println(rel, "errors", p.Errors)
		return
	}
	name := p.Name
	dir := root + "/" + rel
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
		// another package naming pkg.N: grep over the tree, excluding this dir's own-package files
		out, _ := exec.Command("grep", "-rlwE", "--include=*.go", name+`\.`+n, root).Output()
		outside := false
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, dir+"/") && !strings.Contains(f[len(dir)+1:], "/") {
				// same dir: only an external test package counts
				b, _ := os.ReadFile(f)
				if bytes.Contains(b, []byte("package "+name+"_test")) {
					outside = true
				}
				continue
			}
			outside = true
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
	type edit struct {
		off      int
		old, new string
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
			fmt.Printf("%s: skip %s (%s taken)\n", rel, n, nn)
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
			fmt.Printf("%s: skip %s (%s would be shadowed)\n", rel, n, nn)
			continue
		}
		renamed++
		for _, id := range ids {
			pos := p.Fset.Position(id.Pos())
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
	fmt.Printf("%s: exported %d, named outside %d, unexport %d, renamed %d; unused inside too: %v\n", rel, len(exported), len(exported)-len(unused), len(unused), renamed, dead)
	fmt.Printf("%s: names: %v\n", rel, unused)
	if !write {
		return
	}
	for fn, es := range edits {
		b, _ := os.ReadFile(fn)
		sort.Slice(es, func(i, j int) bool { return es[i].off > es[j].off })
		last := -1
		for _, e := range es {
			if e.off == last {
				continue
			}
			last = e.off
			if string(b[e.off:e.off+len(e.old)]) != e.old {
				fmt.Println("mismatch", fn, e.off, e.old)
				continue
			}
			b = append(b[:e.off], append([]byte(e.new), b[e.off+len(e.old):]...)...)
		}
		os.WriteFile(fn, b, 0o644)
	}
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
