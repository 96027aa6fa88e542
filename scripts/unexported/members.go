package main

import (
	"fmt"
	"go/types"
	"io"
	"strings"
)

// renameMembers lower-cases the named fields and methods (Type.Member) of
// the package at rel, which no other package may name. They are picked
// by hand from the list run prints: whether an interface elsewhere, or
// reflection, needs a member is not something go/types can say.
func renameMembers(w io.Writer, t *tree, root, rel string, names []string) error {
	p, err := loadPkg(root, rel)
	if err != nil {
		return err
	}
	edits := map[string][]edit{}
	for _, full := range names {
		tname, mname, _ := strings.Cut(full, ".")
		tn, ok := p.Types.Scope().Lookup(tname).(*types.TypeName)
		if !ok {
			return fmt.Errorf("%s: no type %s", rel, tname)
		}
		o, _, _ := types.LookupFieldOrMethod(tn.Type(), true, p.Types, mname)
		if o == nil {
			return fmt.Errorf("%s: %s has no %s", rel, tname, mname)
		}
		if v, ok := o.(*types.Var); ok && v.Embedded() {
			return fmt.Errorf("%s: %s is an embedded field: rename its type", rel, full)
		}
		if t.member[declPos(p.Fset.Position(o.Pos()))] {
			return fmt.Errorf("%s: %s is named by another package", rel, full)
		}
		nn := lower(mname)
		if c, _, _ := types.LookupFieldOrMethod(tn.Type(), true, p.Types, nn); c != nil {
			fmt.Fprintf(w, "%s: skip %s (%s taken)\n", rel, full, nn)
			continue
		}
		for id, u := range p.TypesInfo.Uses {
			if u == o {
				pos := p.Fset.Position(id.Pos())
				edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, mname, nn})
			}
		}
		pos := p.Fset.Position(o.Pos())
		edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, mname, nn})
		fmt.Fprintf(w, "%s: %s -> %s.%s\n", rel, full, tname, nn)
	}
	return applyEdits(w, edits)
}
