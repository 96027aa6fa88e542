package spec

import (
	"slices"
	"sync"
)

// Type is a JSON type as the spec names it. Integer is a number without a
// fractional part.
type Type string

const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Boolean Type = "boolean"
	Object  Type = "object"
	Array   Type = "array"
)

// value is a known value of a field.
type value struct {
	Name    string
	Number  int // the number the name stands for, where the spec gives one
	Meaning string
}

// Field is one member of a JSON object in the interface.
type Field struct {
	Name    string
	Type    Type
	Format  Format
	Meaning string
	// Values are the known values. With Closed they are the only valid ones;
	// otherwise they are values seen in the samples, the first the most
	// common.
	Values []value
	Closed bool
	// Numbered says Values carry the numbers their names stand for.
	Numbered bool
	// Hidden marks a receipt field that only the curl sample bodies carry.
	Hidden bool
	// Marker marks an invoice field whose presence identifies its shape, so
	// that a body holding markers of both shapes mixes them.
	Marker bool
	// Advisory says the field's Format or Values are what the spec leads one
	// to expect rather than a rule: a value outside them is valid but worth a
	// warning (invoiceType beyond VALUE_ADDED_TAX, a receipt currency code
	// such as PRE001).
	Advisory bool
	// Fields are the members of an object, or of each element of an array.
	Fields []Field
	// Elem is the type of an array's elements or of a free-keyed object's
	// values (itemAttributes); Object with Fields for arrays of objects.
	Elem Type
	// Of is the domain value the field carries; the generator renders a
	// document by it, so fields of different names or shapes that carry the
	// same value share it.
	Of Datum
	// Identity says what kind of identifying value the field holds, "" for
	// none. See Identities.
	Identity Identity

	// only limits the field to one shape; sample replaces it in the sample
	// shape (an alias, another type), keeping its members when it has none.
	only   Shape
	sample *Field
}

// Member returns the member of f named name.
func (f Field) Member(name string) (Field, bool) {
	if i := slices.IndexFunc(f.Fields, func(m Field) bool { return m.Name == name }); i >= 0 {
		return f.Fields[i], true
	}
	return Field{}, false
}

// ValueNames lists the names of the known values.
func (f Field) ValueNames() []string {
	names := make([]string, len(f.Values))
	for i, v := range f.Values {
		names[i] = v.Name
	}
	return names
}

// ValueNumbers lists the numbers the known values stand for, in the order
// of ValueNames (meaningful where Numbered).
func (f Field) ValueNumbers() []int {
	numbers := make([]int, len(f.Values))
	for i, v := range f.Values {
		numbers[i] = v.Number
	}
	return numbers
}

// Invoice field names that more than one piece of code refers to.
const (
	FieldRequestID    = "requestId"
	FieldBusinessType = "businessType"
	FieldData         = "data"

	FieldItems    = "items"
	FieldRecords  = "records"
	FieldStatus   = "status"
	FieldCode     = "code"     // the document code, of data
	FieldComments = "comments" // the invoice's and each item's remark

	FieldEnterpriseCode = "enterpriseCode" // the sample shape's customerCode
	FieldReceiptNumber  = "收款单编号"          // a receipt's document number, in its header

	FieldSourceRemark = "备注" // a receipt source line's remark

	ReceiptHeader  = "收款单"
	ReceiptLines   = "收款明细"
	ReceiptSources = "源单明细"
)

// Status values of the described invoice shape.
const (
	StatusPass    = "PASS"
	StatusRefusal = "REFUSAL"
)

// SampleStatus maps the described status names to the integers whsim puts in
// the sample shape. The spec shows an integer there but not its values; these
// follow the usual ERP habit (1 approved, 2 rejected).
func SampleStatus(name string) int {
	if name == StatusRefusal {
		return 2
	}
	return 1
}

// Field names the ledger relations and the tax-id check refer to (see
// ledger.go); the tables below use them too, so each is written once.
const (
	FieldTaxID = "taxCode"

	fieldQuantity = "quantity"
	FieldPrice    = "price"
	FieldTax      = "tax"

	FieldDue         = "应收金额"
	fieldDueBase     = "应收金额本位币"
	fieldNet         = "实收金额"
	fieldNetBase     = "实收金额本位币"
	FieldWrittenOff  = "已核销金额"
	FieldOutstanding = "未核销金额"
	FieldRate        = "汇率"
	FieldLineOffBase = "已核销金额本位币-隐"
	FieldLineDueBase = "应收金额本位币-隐"
	FieldSourceThis  = "本次应收金额"
)

func str(name string, of Datum, meaning string) Field {
	return Field{Name: name, Type: String, Of: of, Meaning: meaning}
}
func num(name string, of Datum, meaning string) Field {
	return Field{Name: name, Type: Number, Of: of, Meaning: meaning}
}
func millis(name string, of Datum, meaning string) Field {
	return Field{Name: name, Type: Integer, Format: UnixMillis, Of: of, Meaning: meaning}
}
func seen(f Field, values ...string) Field {
	for _, v := range values {
		f.Values = append(f.Values, value{Name: v})
	}
	return f
}

// hidden marks a receipt field only the sample bodies carry.
func hidden(f Field) Field { f.Hidden, f.only = true, Sample; return f }
func marker(f Field) Field { f.Marker = true; return f }
func who(f Field, id Identity) Field {
	f.Identity = id
	return f
}

// describedOnly leaves f out of the sample shape.
func describedOnly(f Field) Field { f.only = Described; return f }

// sampleAlias names f differently in the sample shape.
func sampleAlias(f Field, name, meaning string) Field {
	v := f
	v.Name, v.Meaning, v.Fields = name, meaning, nil
	f.sample = &v
	return f
}

func object(name string, of Datum, meaning string, members ...Field) Field {
	return Field{Name: name, Type: Object, Of: of, Meaning: meaning, Fields: members}
}
func arrayOf(name string, of Datum, meaning string, members ...Field) Field {
	return Field{Name: name, Type: Array, Elem: Object, Of: of, Meaning: meaning, Fields: members}
}

func currencyObject(name string, of Datum, meaning string) Field {
	return object(name, of, meaning,
		Field{Name: "code", Type: String, Format: CurrencyCode, Advisory: true, Of: CurCode, Meaning: "Currency code"},
		str("field_7bf2h", CurName, "Currency display name"))
}

func customerObject(name string, of Datum, meaning string) Field {
	return who(object(name, of, meaning,
		who(str("code", PartyCode, "Customer code"), CustomerCode),
		who(str("name", PartyName, "Customer name"), CompanyName)), Customer)
}

// The tables are built on first use rather than when the package is
// initialised: building them was most of what package spec cost every
// process, whsim --version included, whether it read them or not (#35).
var (
	invoiceTable = sync.OnceValue(invoice)
	receiptTable = sync.OnceValue(receipt)
)

// invoice is the purchase invoice in the described shape, with what the
// sample shape leaves out or names differently.
func invoice() []Field {
	createType := Field{Name: "createType", Type: String, Closed: true, Numbered: true, Marker: true, Of: InvCreateType,
		Meaning: "Type of the document the invoice was raised from",
		Values: []value{
			{Name: "SALE_ORDER", Number: 0, Meaning: "sales order"},
			{Name: "SALE_OUT", Number: 1, Meaning: "sales outbound"},
			{Name: "SALE_RETURN", Number: 2, Meaning: "sales return"},
			{Name: "PURCHASE_ORDER", Number: 3, Meaning: "purchase order"},
			{Name: "PURCHASE_RECEIPT", Number: 4, Meaning: "purchase receipt"},
			{Name: "PURCHASE_RETURN", Number: 5, Meaning: "purchase return"},
		}}

	status := Field{Name: FieldStatus, Type: String, Closed: true, Of: InvStatus, Meaning: "Audit status",
		Values: []value{
			{Name: StatusPass, Meaning: "approved"},
			{Name: StatusRefusal, Meaning: "rejected"},
		},
		sample: &Field{Name: FieldStatus, Type: Integer, Of: InvStatusNumber,
			Meaning: "Audit status as a number (values not given; whsim sends 1 approved, 2 rejected)"}}

	return []Field{
		who(str(FieldCode, InvCode, "Document code (may be an empty string)"), DocumentNumber),
		describedOnly(marker(Field{Name: "invoiceType", Type: String, Advisory: true, Of: InvType, Meaning: "Invoice type",
			Values: []value{{Name: "VALUE_ADDED_TAX", Meaning: "value-added tax invoice"}}})),
		str("invoiceTypeCode", InvTypeCode, "Invoice category code"),
		who(str("invoiceTitle", InvTitle, "Invoice title"), InvoiceTitle),
		describedOnly(who(str("invoiceCode", InvNumber, "Invoice number"), InvoiceNumber)),
		who(str(FieldTaxID, InvTaxID, "Taxpayer identification number"), TaxID),
		sampleAlias(marker(who(str("customerCode", InvSupplierCode, "Customer code"), CustomerCode)),
			FieldEnterpriseCode, "Enterprise code (where the description has customerCode)"),
		sampleAlias(marker(who(str("customerName", InvSupplierName, "Customer name"), CompanyName)),
			"enterpriseName", "Enterprise name (where the description has customerName)"),
		who(str("staffCode", InvStaffCode, "Issuer's employee number"), EmployeeCode),
		who(str("staffName", InvStaffName, "Issuer's name"), PersonName),
		describedOnly(who(str("applicationCode", InvApplicantCode, "Applicant's employee number"), EmployeeCode)),
		describedOnly(who(str("applicationName", InvApplicantName, "Applicant's name"), PersonName)),
		who(str(FieldComments, InvRemark, "Invoice remark"), Remark),
		{Name: "currency", Type: String, Format: CurrencyCode, Of: InvCurrency,
			Meaning: "Currency code (ISO 4217 style, three letters)"},
		describedOnly(createType),
		status,
		describedOnly(marker(millis("createTime", InvCreated, "Creation time, milliseconds since the Unix epoch"))),
		sampleAlias(marker(arrayOf(FieldItems, InvItems, "Invoice lines",
			who(str("relatedOrderCode", ItemOrder, "Related document number"), DocumentNumber),
			str("itemCode", ItemCode, "Material code"),
			str("itemName", ItemName, "Material name"),
			num(fieldQuantity, ItemQuantity, "Quantity of the order line"),
			num(FieldPrice, ItemPrice, "Price"),
			describedOnly(num(FieldTax, ItemTax, "Tax amount")),
			describedOnly(Field{Name: "itemAttributes", Type: Object, Elem: String, Of: ItemAttributes,
				Meaning: "Material specification, attribute name to attribute value"}),
			who(str(FieldComments, ItemRemark, "Line remark"), Remark),
		)), FieldRecords, "Invoice lines (where the description has items)"),
	}
}

// receipt is the receipt document in the sample shape; the described
// shape leaves out the hidden fields.
func receipt() []Field {
	return []Field{
		object(ReceiptHeader, ReceiptDoc, "Receipt header",
			who(str(FieldReceiptNumber, RecNumber, "Receipt document number"), DocumentNumber),
			seen(str("单据类型", RecType, "Document type"), "销售收款"),
			seen(str("单据状态", RecState, "Document status"), "未开始"),
			seen(str("审核状态", RecAudit, "Audit status"), "待提交"),
			seen(str("核销状态", RecWriteOff, "Write-off status"), "未核销"),
			millis("业务日期", RecDate, "Business date, milliseconds since the Unix epoch"),
			customerObject("客户名称", RecCustomer, "Customer"),
			currencyObject("币别", RecCurrency, "Currency"),
			str("币种代码", RecCurrencyName, "Currency display text"),
			currencyObject("本位币", RecBaseCurrency, "Base currency"),
			currencyObject("结算币别", RecCurrency, "Settlement currency"),
			num(FieldRate, RecRate, "Exchange rate"),
			num("币别汇率", RecRate, "Currency exchange rate"),
			num("结算汇率", RecRate, "Settlement exchange rate"),
			num("结算币别汇率", RecRate, "Settlement currency exchange rate"),
			num(FieldDue, RecDue, "Receivable amount"),
			num(fieldDueBase, recDueBase, "Receivable amount in base currency"),
			num(fieldNet, recNet, "Amount actually received"),
			num(fieldNetBase, recNetBase, "Amount actually received in base currency"),
			num(FieldWrittenOff, RecWrittenOff, "Written-off amount"),
			num(FieldOutstanding, RecOutstanding, "Amount not yet written off"),
			Field{Name: "是否生产凭证", Type: Boolean, Of: RecVoucher, Meaning: "Whether an accounting voucher is generated"},
			hidden(num("收款跳转标志", RecJumpFlag, "Receipt jump flag")),
		),
		arrayOf(ReceiptLines, RecLines, "Receipt detail lines",
			str("编号", Seq, "Line number"),
			seen(str("收款用途", LinePurpose, "Receipt purpose"), "销售收款"),
			num(FieldDue, LineDue, "Receivable amount"),
			num("收款金额", LineReceived, "Receipt amount"),
			num(fieldNet, LineNet, "Amount actually received"),
			num("现金折扣", LineDiscount, "Cash discount"),
			num("折后金额", LineAfterDiscount, "Amount after discount"),
			num("长短款", LineOverShort, "Overage or shortage"),
			num("手续费", LineFee, "Handling fee"),
			num(FieldWrittenOff, LineWrittenOff, "Written-off amount"),
			num(FieldOutstanding, lineOutstanding, "Amount not yet written off"),
			hidden(num(FieldLineOffBase, LineWrittenOffBase, "Written-off amount in base currency")),
			hidden(Field{Name: FieldLineDueBase, Type: String, Format: Decimal2, Of: LineDueBase,
				Meaning: "Receivable amount in base currency (decimal string, two fraction digits)"}),
		),
		arrayOf(ReceiptSources, RecSources, "Source-document lines",
			str("编号", Seq, "Line number"),
			who(str("源单编号", SrcNumber, "Source document number"), DocumentNumber),
			seen(str("源单类型", SrcType, "Source document type"), "标准应收单"),
			customerObject("源单客户", RecCustomer, "Source document customer"),
			currencyObject("源单币别", RecCurrency, "Source document currency"),
			num(FieldDue, SrcDue, "Receivable amount"),
			num(FieldSourceThis, SrcThis, "Receivable amount this time"),
			num("计划应收金额", SrcPlanned, "Planned receivable amount"),
			millis("到期日", SrcDueDate, "Due date, milliseconds since the Unix epoch"),
			who(str(FieldSourceRemark, SrcRemark, "Remark (may be empty)"), Remark),
			hidden(num("未核销金额-隐", SrcOutstanding, "Amount not yet written off")),
		),
	}
}

// Data describes the data object of a document kind in a shape. For
// receipts the described shape leaves out the hidden fields.
func Data(k Kind, s Shape) Field {
	table := invoiceTable()
	if k == Receipt {
		table = receiptTable()
	}
	return Field{Name: FieldData, Type: Object, Meaning: "Event payload: " + string(k), Fields: project(table, s)}
}

// Body describes the whole request body of an event in a shape: the
// envelope with its data.
func Body(e Event, s Shape) Field {
	return Field{Type: Object, Meaning: e.Meaning, Fields: []Field{
		{Name: FieldRequestID, Type: String, Format: UUID, Meaning: "Request identifier, for debugging only"},
		{Name: FieldBusinessType, Type: Integer, Closed: true, Meaning: "Event number",
			Values: []value{{Name: e.Name, Number: e.NumberFor(s)}}, Numbered: true},
		Data(e.Kind, s),
	}}
}

// project returns the fields of a table as shape s has them.
func project(table []Field, s Shape) []Field {
	out := make([]Field, 0, len(table))
	for _, f := range table {
		if f.only != "" && f.only != s {
			continue
		}
		if s == Sample && f.sample != nil {
			members := f.Fields
			f = *f.sample
			f.Fields = members
		}
		if f.Fields != nil {
			f.Fields = project(f.Fields, s)
		}
		f.only, f.sample = "", nil
		out = append(out, f)
	}
	return out
}
