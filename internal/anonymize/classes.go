package anonymize

import "github.com/whsim/whsim/internal/spec"

// fieldClasses maps the path of every identifying field of every event and
// shape (array elements written []) to its class, from the spec model.
func fieldClasses() map[string]Class {
	m := map[string]Class{}
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			walkFields(spec.Body(e, s).Fields, "", m)
		}
	}
	return m
}

func walkFields(fields []spec.Field, prefix string, m map[string]Class) {
	for _, f := range fields {
		p := join(prefix, f.Name)
		if c, ok := classByName[f.Name]; ok && f.Type == spec.String && f.Format == "" {
			m[p] = c
		}
		if f.Type == spec.Array {
			p += "[]"
		}
		walkFields(f.Fields, p, m)
	}
}

// PLACEHOLDER until the spec model carries identity marks.
var classByName = map[string]Class{
	"code": Code, "invoiceTitle": CompanyName, "invoiceCode": Code, "taxCode": TaxID,
	"customerCode": Code, "customerName": CompanyName, "enterpriseCode": Code, "enterpriseName": CompanyName,
	"staffCode": Code, "staffName": PersonName, "applicationCode": Code, "applicationName": PersonName,
	"comments": Remark, "relatedOrderCode": Code, "收款单编号": Code, "源单编号": Code, "备注": Remark,
	"name": CompanyName,
}
