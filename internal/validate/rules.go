package validate

import "github.com/whsim/whsim/internal/spec"

// severity says whether a finding fails a payload (error) or only tells
// (warning; it fails too under Options.Strict).
type severity string

const (
	Error   severity = "error"
	Warning severity = "warning"
)

// Rule ids. They are stable: users silence rules with --ignore <id> and CI
// systems match on them.
const (
	ruleSyntax       = "json-syntax"
	ruleDuplicateKey = "duplicate-key"
	ruleEnvelope     = "envelope"
	ruleRequestID    = "envelope-request-id"
	ruleBusinessType = "envelope-business-type"
	ruleData         = "envelope-data"
	RuleQueryEvent   = "query-event"
	// RuleQueryRepeated is a query that names businessType more than
	// once, each time the same: Go and PHP read the event, receivers
	// that join repeated values (Spring) or make an array (Express) none.
	RuleQueryRepeated = "query-event-repeated"
	// RuleContentEncoding is a body whose Content-Encoding whsim cannot
	// undo (unknown, corrupt, or over the body limit once decoded).
	RuleContentEncoding = "content-encoding"
	// RuleRejected is a captured request the HTTP server refused before
	// listen could read it (capture.Record.Rejected).
	RuleRejected = "http-rejected"
	// RuleBodyLimit is a call whose body was over listen's --max-body,
	// answered 413 and not kept (capture.Record.BodyOverLimit).
	RuleBodyLimit = "http-body-limit"
	// RuleHTTPMethod is a call whose method is not POST, and
	// RuleHTTPContentType one whose Content-Type is not application/json:
	// the spec sends neither. listen finds them as the call comes, and
	// validate and inspect again in its record (RequestFindings).
	RuleHTTPMethod      = "http-method"
	RuleHTTPContentType = "http-content-type"
	// RuleHTTPCharset is an application/json call whose Content-Type
	// names a charset other than UTF-8 (a Chinese sender's GBK): JSON is
	// UTF-8 whatever it says (RFC 8259), but Spring's Jackson converter,
	// a servlet's getReader and ASP.NET Core decode the body by it.
	RuleHTTPCharset = "http-charset"
	// RuleClosedAtStop is a captured request listen's own stop closed
	// unread as it arrived (capture.Rejected.ClosedAtStop): nothing to
	// check, and nothing its sender did wrong.
	RuleClosedAtStop = "http-closed-at-stop"
	ruleEventNumber  = "event-mismatch"
	ruleType         = "type"
	ruleEnum         = "enum"
	ruleFormat       = "format"
	ruleReceiptPart  = "receipt-member"
	ruleForeignPart  = "receipt-in-invoice"
	ruleMixedShape   = "mixed-shape"
	ruleCapture      = "capture-record"
	// ruleReplay is a record whsim replay refuses to send again for its
	// method, query or headers (capture.CheckReplayable), an error, or
	// one it sends with a warning (capture.Record.ReplayWarning), a
	// warning.
	ruleReplay      = "capture-replay"
	rulePayloadSize = "payload-size"
	ruleTorn        = "torn-line"
	ruleEmptyInput  = "empty-input"

	ruleMissing      = "missing-field"
	ruleUnknown      = "unknown-field"
	ruleNull         = "null-field"
	ruleAdvisory     = "unexpected-value"
	ruleTaxID        = "tax-id-check"
	ruleSeconds      = "timestamp-seconds"
	ruleTimeRange    = "timestamp-range"
	ruleIntegerForm  = "integer-form"
	ruleLoneHalf     = "lone-surrogate"
	ruleLineTax      = "line-tax"
	ruleTotals       = "receipt-totals"
	ruleOutstanding  = "outstanding-amount"
	ruleBaseCurrency = "base-amount"
)

// rule describes one check.
type rule struct {
	ID       string
	Severity severity
	Summary  string
}

var rules = []rule{
	{ruleSyntax, Error, "the body is not strict JSON (RFC 8259): empty, byte-order mark, NaN, single quotes, trailing commas or data, invalid UTF-8, truncation"},
	{ruleDuplicateKey, Error, "an object holds the same key twice"},
	{ruleEnvelope, Error, "the body is not a JSON object"},
	{ruleRequestID, Error, "requestId missing, not a string or not a UUID"},
	{ruleBusinessType, Error, "businessType missing, not an integer or not a known body number"},
	{ruleData, Error, "data missing, null or not an object"},
	{RuleQueryEvent, Error, "the query event is missing, unknown, or named more than once with different values"},
	{RuleHTTPMethod, Error, "a captured call whose method is not POST, which the spec sends"},
	{RuleHTTPContentType, Error, "a captured call whose Content-Type is not application/json (parameters aside: a charset is http-charset's), which the spec sends"},
	{RuleContentEncoding, Error, "the body's Content-Encoding is one whsim cannot decode (gzip and deflate it can), or the body does not decode as it says (corrupt, cut short, larger than the body limit decoded): not checked"},
	{ruleEventNumber, Error, "the query event disagrees with the body businessType"},
	{ruleType, Error, "a field has the wrong JSON type"},
	{ruleEnum, Error, "a closed enumeration holds an unknown value (createType, described status)"},
	{ruleFormat, Error, "a value breaks its format (currency code, decimal string, millisecond timestamp)"},
	{ruleReceiptPart, Error, "a receipt lacks 收款单, 收款明细 or 源单明细"},
	{ruleForeignPart, Error, "an invoice carries a receipt member"},
	{ruleMixedShape, Error, "an invoice mixes the described and the sample shape"},
	{ruleCapture, Error, "a capture record line cannot be read"},
	{ruleReplay, Error, "a captured call whsim replay refuses to send again: a CONNECT (a tunnel asked of listen as of a proxy), a method or header name that is no token, a CR, LF or other control character in a header value, a space or control character in the query (a record made or edited by hand: listen records none); a warning of a record replay sends with a warning, a body shorter than its Content-Length (cut short, or edited since)"},
	{RuleRejected, Error, "a captured request the HTTP server refused before listen could read it (a malformed head: bad header name, two Content-Lengths, no Host, ...): it holds no body to check"},
	{RuleBodyLimit, Error, "a captured call whose body was over listen's --max-body (answered 413): listen did not keep the body, so there is none to check"},
	{rulePayloadSize, Error, "a payload, NDJSON line or array element larger than validate reads (64 MiB)"},
	{ruleEmptyInput, Error, "an input holds no payload (empty, blank, []) while the others do (with none at all: no payloads)"},
	{ruleMissing, Warning, "a field of the spec is absent"},
	{ruleUnknown, Warning, "a field the spec does not define"},
	{ruleNull, Warning, "a field inside data is null (treated as absent)"},
	{ruleAdvisory, Warning, "a value other than the spec leads one to expect (invoiceType, receipt currency code)"},
	{RuleHTTPCharset, Warning, "a captured call whose Content-Type names a charset other than UTF-8 (charset=GBK): JSON is UTF-8, but receivers that decode by the charset (Spring, a servlet's getReader, ASP.NET Core) misread the Chinese text"},
	{RuleQueryRepeated, Warning, "the query names businessType more than once, each time the same: receivers that join a repeated parameter (Spring's @RequestParam String, ASP.NET Core) or make an array of it (Express) read no event"},
	{ruleTaxID, Warning, "a taxpayer id whose check character is wrong, or of a length no taxpayer id has (15, 18 or 20 characters)"},
	{ruleSeconds, Warning, "a millisecond timestamp that looks like seconds"},
	{ruleTimeRange, Warning, "a timestamp before 2000 or from 2100 on"},
	{ruleIntegerForm, Warning, "an integer field written with a fraction or an exponent (5007.0, 1e3): an integer to JSON Schema, refused by Go's encoding/json and Rust's serde_json"},
	{ruleLoneHalf, Warning, "a \\u escape of half a UTF-16 surrogate pair with no other half (\\ud800): valid JSON, but Go's encoding/json reads U+FFFD, JavaScript keeps the half, and PostgreSQL's jsonb refuses the body"},
	{ruleLineTax, Warning, "an invoice line's tax is not a VAT rate on or within quantity × price"},
	{ruleTotals, Warning, "receipt header totals are not the sums of the lines"},
	{ruleOutstanding, Warning, spec.FieldOutstanding + " is not " + spec.FieldDue + " − " + spec.FieldWrittenOff},
	{ruleBaseCurrency, Warning, "a base-currency amount is not the amount × 汇率"},
	{RuleClosedAtStop, Warning, "a captured request listen's own stop (Ctrl-C, SIGTERM) closed unread as it arrived: it holds no body to check, and its sender did nothing wrong"},
	{ruleTorn, Warning, "a line of a capture log is cut short, as a crash or a full disk leaves it: the last line, or one a restarted listen wrote on after (skipped; never fails, even with --strict)"},
}

// Rules lists every rule in a stable order.
func Rules() []rule { return rules }

// ruleIDs lists the rule ids.
func ruleIDs() []string {
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
	rSyntax       = rid(ruleSyntax)
	rDuplicateKey = rid(ruleDuplicateKey)
	rEnvelope     = rid(ruleEnvelope)
	rRequestID    = rid(ruleRequestID)
	rBusinessType = rid(ruleBusinessType)
	rData         = rid(ruleData)
	rQueryEvent   = rid(RuleQueryEvent)
	rEventNumber  = rid(ruleEventNumber)
	rType         = rid(ruleType)
	rEnum         = rid(ruleEnum)
	rFormat       = rid(ruleFormat)
	rReceiptPart  = rid(ruleReceiptPart)
	rForeignPart  = rid(ruleForeignPart)
	rMixedShape   = rid(ruleMixedShape)
	rMissing      = rid(ruleMissing)
	rUnknown      = rid(ruleUnknown)
	rNull         = rid(ruleNull)
	rAdvisory     = rid(ruleAdvisory)
	rTaxID        = rid(ruleTaxID)
	rSeconds      = rid(ruleSeconds)
	rTimeRange    = rid(ruleTimeRange)
	rIntegerForm  = rid(ruleIntegerForm)
	rLoneHalf     = rid(ruleLoneHalf)
	rLineTax      = rid(ruleLineTax)
	rTotals       = rid(ruleTotals)
	rOutstanding  = rid(ruleOutstanding)
	rBaseCurrency = rid(ruleBaseCurrency)
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
