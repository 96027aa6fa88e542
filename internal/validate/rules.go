package validate

import "github.com/whsim/whsim/internal/spec"

// Severity says whether a finding fails a payload (error) or only tells
// (warning; it fails too under Options.Strict).
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Rule ids. They are stable: users silence rules with --ignore <id> and CI
// systems match on them.
const (
	RuleSyntax       = "json-syntax"
	RuleDuplicateKey = "duplicate-key"
	RuleEnvelope     = "envelope"
	RuleRequestID    = "envelope-request-id"
	RuleBusinessType = "envelope-business-type"
	RuleData         = "envelope-data"
	RuleQueryEvent   = "query-event"
	RuleEventNumber  = "event-mismatch"
	RuleType         = "type"
	RuleEnum         = "enum"
	RuleFormat       = "format"
	RuleReceiptPart  = "receipt-member"
	RuleForeignPart  = "receipt-in-invoice"
	RuleMixedShape   = "mixed-shape"
	RuleCapture      = "capture-record"
	RulePayloadSize  = "payload-size"
	RuleTorn         = "torn-line"

	RuleMissing      = "missing-field"
	RuleUnknown      = "unknown-field"
	RuleNull         = "null-field"
	RuleAdvisory     = "unexpected-value"
	RuleTaxID        = "tax-id-check"
	RuleSeconds      = "timestamp-seconds"
	RuleTimeRange    = "timestamp-range"
	RuleLineTax      = "line-tax"
	RuleTotals       = "receipt-totals"
	RuleOutstanding  = "outstanding-amount"
	RuleBaseCurrency = "base-amount"
)

// Rule describes one check.
type Rule struct {
	ID       string
	Severity Severity
	Summary  string
}

var rules = []Rule{
	{RuleSyntax, Error, "the body is not strict JSON (RFC 8259): empty, byte-order mark, NaN, single quotes, trailing commas or data, invalid UTF-8, truncation"},
	{RuleDuplicateKey, Error, "an object holds the same key twice"},
	{RuleEnvelope, Error, "the body is not a JSON object"},
	{RuleRequestID, Error, "requestId missing, not a string or not a UUID"},
	{RuleBusinessType, Error, "businessType missing, not an integer or not a known body number"},
	{RuleData, Error, "data missing, null or not an object"},
	{RuleQueryEvent, Error, "the query event is missing or unknown"},
	{RuleEventNumber, Error, "the query event disagrees with the body businessType"},
	{RuleType, Error, "a field has the wrong JSON type"},
	{RuleEnum, Error, "a closed enumeration holds an unknown value (createType, described status)"},
	{RuleFormat, Error, "a value breaks its format (currency code, decimal string, millisecond timestamp)"},
	{RuleReceiptPart, Error, "a receipt lacks 收款单, 收款明细 or 源单明细"},
	{RuleForeignPart, Error, "an invoice carries a receipt member"},
	{RuleMixedShape, Error, "an invoice mixes the described and the sample shape"},
	{RuleCapture, Error, "a capture record line cannot be read"},
	{RulePayloadSize, Error, "a payload, NDJSON line or array element larger than validate reads (64 MiB)"},
	{RuleMissing, Warning, "a field of the spec is absent"},
	{RuleUnknown, Warning, "a field the spec does not define"},
	{RuleNull, Warning, "a field inside data is null (treated as absent)"},
	{RuleAdvisory, Warning, "a value other than the spec leads one to expect (invoiceType, receipt currency code)"},
	{RuleTaxID, Warning, "a taxpayer id whose check character is wrong"},
	{RuleSeconds, Warning, "a millisecond timestamp that looks like seconds"},
	{RuleTimeRange, Warning, "a timestamp before 2000 or after 2100"},
	{RuleLineTax, Warning, "an invoice line's tax is not quantity × price × a VAT rate"},
	{RuleTotals, Warning, "receipt header totals are not the sums of the lines"},
	{RuleOutstanding, Warning, spec.FieldOutstanding + " is not " + spec.FieldDue + " − " + spec.FieldWrittenOff},
	{RuleBaseCurrency, Warning, "a base-currency amount is not the amount × 汇率"},
	{RuleTorn, Warning, "the last line of a capture log is cut short, as a crash leaves it (skipped; never fails, even with --strict)"},
}

// Rules lists every rule in a stable order.
func Rules() []Rule { return rules }

// RuleIDs lists the rule ids.
func RuleIDs() []string {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return ids
}

type ruleID uint8

var ruleIndex = func() map[string]ruleID {
	m := make(map[string]ruleID, len(rules))
	for i, r := range rules {
		m[r.ID] = ruleID(i)
	}
	return m
}()

func rid(id string) ruleID {
	r, ok := ruleIndex[id]
	if !ok {
		panic("validate: unknown rule " + id)
	}
	return r
}

var (
	rSyntax       = rid(RuleSyntax)
	rDuplicateKey = rid(RuleDuplicateKey)
	rEnvelope     = rid(RuleEnvelope)
	rRequestID    = rid(RuleRequestID)
	rBusinessType = rid(RuleBusinessType)
	rData         = rid(RuleData)
	rQueryEvent   = rid(RuleQueryEvent)
	rEventNumber  = rid(RuleEventNumber)
	rType         = rid(RuleType)
	rEnum         = rid(RuleEnum)
	rFormat       = rid(RuleFormat)
	rReceiptPart  = rid(RuleReceiptPart)
	rForeignPart  = rid(RuleForeignPart)
	rMixedShape   = rid(RuleMixedShape)
	rMissing      = rid(RuleMissing)
	rUnknown      = rid(RuleUnknown)
	rNull         = rid(RuleNull)
	rAdvisory     = rid(RuleAdvisory)
	rTaxID        = rid(RuleTaxID)
	rSeconds      = rid(RuleSeconds)
	rTimeRange    = rid(RuleTimeRange)
	rLineTax      = rid(RuleLineTax)
	rTotals       = rid(RuleTotals)
	rOutstanding  = rid(RuleOutstanding)
	rBaseCurrency = rid(RuleBaseCurrency)
)

// Verdict is "valid", "warning" or "invalid": the worst of the findings.
func Verdict(fs []Finding) string {
	v := "valid"
	for _, f := range fs {
		if f.Severity == Error {
			return "invalid"
		}
		v = "warning"
	}
	return v
}
