package spec

import (
	"strconv"
	"strings"
)

// The domain rules an ERP's documents hold, which whsim's generator makes
// true and its validator checks (domain notes §3 and §5). The amounts are
// named by the Field* constants in fields.go:
//
//   - an invoice line: FieldTax = round2(FieldQuantity × FieldPrice × r) for
//     a VAT rate r of VATRates, within LineTaxTolerance;
//   - a receipt header and each detail line: FieldOutstanding =
//     FieldDue − FieldWrittenOff;
//   - base-currency amounts = the amount × FieldRate: FieldDueBase and
//     FieldNetBase in the header, FieldLineDueBase and FieldLineOffBase in
//     the lines;
//   - the header's FieldDue, FieldNet and FieldWrittenOff are the sums of the
//     lines', and its FieldDue is the sum of the sources' FieldSourceThis.

// vatRates are the VAT rates and levy rates in force, in percent.
var vatRates = [...]int{13, 9, 6, 5, 3, 1, 0}

// VATRates lists the VAT and levy rates in force, in percent, highest first.
func VATRates() []int { return vatRates[:] }

// VATRateList is VATRates for a message: "13%, 9%, …, 0%".
func VATRateList() string {
	parts := make([]string, len(vatRates))
	for i, r := range vatRates {
		parts[i] = strconv.Itoa(r) + "%"
	}
	return strings.Join(parts, ", ")
}

// LineTaxTolerance is the Golden Tax system's tolerance on an invoice line's
// tax, in yuan.
const LineTaxTolerance = 0.06
