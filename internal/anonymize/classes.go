package anonymize

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/spec"
)

// classOf maps the spec model's identity marks to the classes stand-ins are
// drawn by. Kinds that hold the same sort of value share a class, so that a
// company is one stand-in whether it stands in invoiceTitle or in
// customerName.
var classOf = map[spec.Identity]class{
	spec.PersonName:     personName,
	spec.EmployeeCode:   code,
	spec.CompanyName:    companyName,
	spec.CustomerCode:   code,
	spec.TaxID:          TaxID,
	spec.InvoiceNumber:  code,
	spec.InvoiceTitle:   companyName,
	spec.DocumentNumber: code,
	spec.Remark:         remark,
	// spec.Customer marks an object; its code and name carry their own.
}

// fieldClasses maps the path of every identifying field of every event and
// shape (array elements written []) to its class.
func fieldClasses() map[string]class {
	m := map[string]class{}
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			for _, f := range spec.Identities(spec.Body(e, s)) {
				if c, ok := classOf[f.Field.Identity]; ok {
					m[strings.ReplaceAll(spec.Path(f.Path...), "."+spec.Each, spec.Each)] = c
				}
			}
		}
	}
	return m
}

// identityKey is the name of an identifying field of the spec and its
// class, for identityKeys.
type identityKey struct {
	name string // folded as foldKey folds (lower case), or Chinese as it is
	c    class
}

// identityKeys lists the names of the spec's identifying fields that are
// of one class wherever they stand and name no other field, longest first:
// a query parameter, a header or an XML element so named (?staffName=,
// X-Staff-Name, <taxCode>) labels its value as the field does in JSON.
// code and name are a currency's too, and remarks are remarkKey's.
func identityKeys() []identityKey {
	classes := map[string]class{}
	mixed := map[string]bool{}
	var walk func(fields []spec.Field)
	walk = func(fields []spec.Field) {
		for _, f := range fields {
			c := classOf[f.Identity]
			if prior, seen := classes[f.Name]; c == "" || c == remark || seen && prior != c {
				mixed[f.Name] = true
			}
			classes[f.Name] = c
			walk(f.Fields)
		}
	}
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			walk(spec.Body(e, s).Fields)
		}
	}
	var keys []identityKey
	for name, c := range classes {
		if !mixed[name] && name != "name" && name != "code" {
			keys = append(keys, identityKey{name: strings.ToLower(name), c: c})
		}
	}
	slices.SortFunc(keys, func(a, b identityKey) int { return cmp.Or(len(b.name)-len(a.name), strings.Compare(a.name, b.name)) })
	return keys
}

// identityKey is the class of the spec's identifying field whose name
// ends name as a word of its own (staffName, X-Staff-Name, staff_name;
// a Chinese one at the end of the name), "" for none.
func (a *anonymizer) identityKey(name string) class {
	if name == "" {
		return ""
	}
	if name[len(name)-1] >= utf8.RuneSelf {
		for _, k := range a.keys {
			if k.name[0] >= utf8.RuneSelf && strings.HasSuffix(name, k.name) {
				return k.c
			}
		}
		return ""
	}
	f := foldKey(name)
	for _, k := range a.keys {
		if k.name[0] < utf8.RuneSelf && f.endsWithWord(k.name) {
			return k.c
		}
	}
	return ""
}
