package spec

import (
	"strconv"
	"strings"
)

// The ledger: the arithmetic an ERP's documents hold (domain notes §3 and
// §5), which whsim's generator computes and its validator checks from these
// tables, by Datum. A relation added here is generated and checked.

// A Difference is Result = Of − Less within one record: what is left to
// write off.
type difference struct{ Result, Of, Less Datum }

// A Conversion is Base = Amount × Rate, rounded to two decimals: an amount
// in the base currency. Rate is the receipt header's.
type conversion struct{ Base, Amount, Rate Datum }

// A Total is Header = the sum of Elem over the elements of List.
type total struct{ Header, List, Elem Datum }

// A Taxation is Tax = round2(round2(Quantity × Price) × r) for one of the VAT rates
// r of VATRates, within LineTaxTolerance; or, where Price includes the tax
// (the spec does not say; domain notes §3), the tax within that amount,
// round2(Quantity × Price × r / (1 + r)).
type taxation struct{ Tax, Quantity, Price Datum }

var (
	differences = [...]difference{
		{RecOutstanding, RecDue, RecWrittenOff},
		{lineOutstanding, LineDue, LineWrittenOff},
	}
	conversions = [...]conversion{
		{recDueBase, RecDue, RecRate},
		{recNetBase, recNet, RecRate},
		{LineWrittenOffBase, LineWrittenOff, RecRate},
		{LineDueBase, LineDue, RecRate},
	}
	// The receivable total is both the lines' and what the source
	// documents collect this time; the generator computes it from the
	// first and shares it out over the second.
	totals = [...]total{
		{RecDue, RecLines, LineDue},
		{recNet, RecLines, LineNet},
		{RecWrittenOff, RecLines, LineWrittenOff},
		{RecDue, RecSources, SrcThis},
	}
)

// Differences lists the ledger's differences.
func Differences() []difference { return differences[:] }

// Conversions lists the ledger's base-currency amounts.
func Conversions() []conversion { return conversions[:] }

// Totals lists the ledger's totals, the first of each header amount the
// one it is computed from.
func Totals() []total { return totals[:] }

// LineTax is the invoice line's tax rule.
func LineTax() taxation { return taxation{ItemTax, ItemQuantity, ItemPrice} }

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

// LineTaxToleranceCents is the Golden Tax system's tolerance on an invoice
// line's tax, in cents: the validator decides it exactly.
const LineTaxToleranceCents = 6

// LineTaxTolerance is LineTaxToleranceCents in yuan.
const LineTaxTolerance = LineTaxToleranceCents / 100.0
