package spec

// Identity is the kind of value in a field that identifies a person or a
// company. whsim anonymize replaces such values, each kind with a
// plausible value of its kind.
type Identity string

const (
	PersonName     Identity = "person-name"     // a person's name
	EmployeeCode   Identity = "employee-code"   // an employee number
	CompanyName    Identity = "company-name"    // a company's registered name
	CustomerCode   Identity = "customer-code"   // a customer, supplier or enterprise code
	TaxID          Identity = "tax-id"          // a taxpayer id (unified social credit code)
	InvoiceNumber  Identity = "invoice-number"  // the number printed on an invoice
	InvoiceTitle   Identity = "invoice-title"   // an invoice title (the buyer's name)
	DocumentNumber Identity = "document-number" // an ERP document number
	Remark         Identity = "remark"          // free text, which may name anyone
	Customer       Identity = "customer"        // an object holding a customer's code and name
)

// identityField is a field that identifies someone, at a path below the
// field Identities was given.
type identityField struct {
	// Path holds the member names from the given field down; Each stands
	// for every element of an array.
	Path  []string
	Field Field
}

// Identities lists the fields under f (f's members, theirs, and so on) that
// carry an Identity, in table order. An object with an Identity (a
// Customer) is listed before its members, which carry their own. Typical
// use: Identities(Data(kind, shape)).
func Identities(f Field) []identityField {
	var out []identityField
	var walk func(path []string, fields []Field)
	walk = func(path []string, fields []Field) {
		for _, m := range fields {
			p := append(path[:len(path):len(path)], m.Name)
			if m.Identity != "" {
				out = append(out, identityField{Path: p, Field: m})
			}
			if m.Type == Array {
				p = append(p, Each)
			}
			walk(p, m.Fields)
		}
	}
	walk(nil, f.Fields)
	return out
}
