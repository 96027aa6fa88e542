package spec

import (
	"strings"
	"testing"
)

func TestIdentities(t *testing.T) {
	t.Parallel()
	marks := func(f Field) map[string]Identity {
		out := map[string]Identity{}
		for _, m := range Identities(f) {
			out[strings.Join(m.Path, ".")] = m.Field.Identity
		}
		return out
	}
	tests := []struct {
		name  string
		data  Field
		want  map[string]Identity
		count int
	}{
		{"described invoice", Data(Invoice, Described), map[string]Identity{
			"code": DocumentNumber, "invoiceTitle": InvoiceTitle, "invoiceCode": InvoiceNumber, "taxCode": TaxID,
			"customerCode": CustomerCode, "customerName": CompanyName, "staffCode": EmployeeCode, "staffName": PersonName,
			"applicationCode": EmployeeCode, "applicationName": PersonName, "comments": Remark,
			"items.[].relatedOrderCode": DocumentNumber, "items.[].comments": Remark,
		}, 13},
		{"sample invoice", Data(Invoice, Sample), map[string]Identity{
			"enterpriseCode": CustomerCode, "enterpriseName": CompanyName, "taxCode": TaxID,
			"records.[].relatedOrderCode": DocumentNumber,
		}, 10},
		{"receipt", Data(Receipt, Sample), map[string]Identity{
			"收款单.收款单编号": DocumentNumber, "收款单.客户名称": Customer, "收款单.客户名称.code": CustomerCode,
			"收款单.客户名称.name": CompanyName, "源单明细.[].源单编号": DocumentNumber, "源单明细.[].源单客户": Customer,
			"源单明细.[].源单客户.name": CompanyName, "源单明细.[].备注": Remark,
		}, 9},
	}
	for _, tt := range tests {
		got := marks(tt.data)
		for path, id := range tt.want {
			if got[path] != id {
				t.Errorf("%s: %s marked %q, want %q", tt.name, path, got[path], id)
			}
		}
		if len(got) != tt.count {
			t.Errorf("%s: %d identity fields %v, want %d", tt.name, len(got), got, tt.count)
		}
	}
	for path := range marks(Data(Invoice, Described)) {
		if strings.Contains(path, "currency") || strings.Contains(path, "quantity") {
			t.Errorf("%s is marked as identifying", path)
		}
	}
}

// TestEveryFieldNamesItsDatum: the generator renders a field by its Of, so
// a table row without one could not be generated.
func TestEveryFieldNamesItsDatum(t *testing.T) {
	t.Parallel()
	var walk func(path string, fs []Field)
	walk = func(path string, fs []Field) {
		for _, f := range fs {
			if f.Of == NoDatum || f.Of >= NumDatums {
				t.Errorf("%s%s has no datum", path, f.Name)
			}
			walk(path+f.Name+".", f.Fields)
		}
	}
	for _, k := range []Kind{Invoice, Receipt} {
		for _, s := range Shapes() {
			walk(string(k)+"/"+string(s)+": ", Data(k, s).Fields)
		}
	}
}
