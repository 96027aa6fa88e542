package spec

// Datum names a value of the domain document a field carries: the
// generator fills a document once and renders it for a shape by the Of of
// each field, so adding a field, or a shape that names a field otherwise,
// is a table edit. Members of an array take their values from the current
// element; members of a customer or currency object from the party or
// currency the object's Of names.
type Datum uint8

const (
	NoDatum Datum = iota

	// The invoice's data.

	InvCode          // document code, "" for some
	InvType          // invoice type, VALUE_ADDED_TAX
	InvTypeCode      // invoice category code
	InvTitle         // invoice title: the buyer's name
	InvNumber        // invoice number
	InvTaxID         // taxpayer id: the buyer's, beside its title
	InvSupplierCode  // the supplier's code
	InvSupplierName  // the supplier's name: the seller, who issued the invoice
	InvStaffCode     // issuer's employee number
	InvStaffName     // issuer's name
	InvApplicantCode // applicant's employee number
	InvApplicantName // applicant's name
	InvRemark        // invoice remark
	InvCurrency      // currency code
	InvCreateType    // the source document's type
	InvStatus        // audit status name (PASS, REFUSAL)
	InvStatusNumber  // audit status as the sample shape's integer
	InvCreated       // creation time
	InvItems         // the invoice lines

	ItemOrder      // related document number
	ItemCode       // material code
	ItemName       // material name
	ItemQuantity   // quantity
	ItemPrice      // unit price
	ItemTax        // the line's VAT
	ItemAttributes // material specification
	ItemRemark     // line remark

	// The receipt's data.
	ReceiptDoc      // the receipt header
	RecNumber       // receipt document number
	RecType         // document type
	RecState        // document status
	RecAudit        // audit status
	RecWriteOff     // write-off status
	RecDate         // business date
	RecCustomer     // the customer (a party)
	RecCurrency     // the document currency
	RecCurrencyName // its display name
	RecBaseCurrency // the base currency
	RecRate         // exchange rate to the base currency
	RecDue          // receivable total
	recDueBase      // receivable total in base currency
	recNet          // received total
	recNetBase      // received total in base currency
	RecWrittenOff   // written-off total
	RecOutstanding  // not yet written off
	RecVoucher      // whether a voucher is generated
	RecJumpFlag     // receipt jump flag
	RecLines        // the detail lines
	RecSources      // the source-document lines

	Seq                // an element's position, from 1
	LinePurpose        // receipt purpose
	LineDue            // receivable amount
	LineReceived       // receipt amount (after discount, with overage)
	LineNet            // received amount (less the fee)
	LineDiscount       // cash discount
	LineAfterDiscount  // amount after discount
	LineOverShort      // overage or shortage
	LineFee            // handling fee
	LineWrittenOff     // written-off amount
	lineOutstanding    // not yet written off
	LineWrittenOffBase // written-off amount in base currency
	LineDueBase        // receivable amount in base currency

	SrcNumber      // source document number
	SrcType        // source document type
	SrcDue         // receivable amount
	SrcThis        // receivable amount this time
	SrcPlanned     // planned receivable amount
	SrcDueDate     // due date
	SrcRemark      // remark
	SrcOutstanding // not yet written off

	PartyCode // a customer object's code
	PartyName // a customer object's name
	CurCode   // a currency object's code
	CurName   // a currency object's display name

	// NumDatums bounds the Datum values, for tables indexed by them.
	NumDatums
)
