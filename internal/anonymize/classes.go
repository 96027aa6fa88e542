package anonymize

import (
	"strings"

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
