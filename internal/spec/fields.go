package spec

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

// Value is a known value of a field.
type Value struct {
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
	Values []Value
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
}

// Member returns the member of f named name.
func (f Field) Member(name string) (Field, bool) {
	for _, m := range f.Fields {
		if m.Name == name {
			return m, true
		}
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

// Invoice field names that more than one piece of code refers to.
const (
	FieldRequestID    = "requestId"
	FieldBusinessType = "businessType"
	FieldData         = "data"

	FieldItems   = "items"
	FieldRecords = "records"
	FieldStatus  = "status"

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

func str(name, meaning string) Field { return Field{Name: name, Type: String, Meaning: meaning} }
func num(name, meaning string) Field { return Field{Name: name, Type: Number, Meaning: meaning} }
func millis(name, meaning string) Field {
	return Field{Name: name, Type: Integer, Format: UnixMillis, Meaning: meaning}
}
func seen(f Field, values ...string) Field {
	for _, v := range values {
		f.Values = append(f.Values, Value{Name: v})
	}
	return f
}
func hidden(f Field) Field { f.Hidden = true; return f }
func marker(f Field) Field { f.Marker = true; return f }
func object(name, meaning string, members ...Field) Field {
	return Field{Name: name, Type: Object, Meaning: meaning, Fields: members}
}
func arrayOf(name, meaning string, members ...Field) Field {
	return Field{Name: name, Type: Array, Elem: Object, Meaning: meaning, Fields: members}
}

func currencyObject(name, meaning string) Field {
	return object(name, meaning,
		Field{Name: "code", Type: String, Format: CurrencyCode, Advisory: true, Meaning: "Currency code"},
		str("field_7bf2h", "Currency display name"))
}

func customerObject(name, meaning string) Field {
	return object(name, meaning,
		str("code", "Customer code"),
		str("name", "Customer name"))
}

var (
	invoiceCurrency = Field{Name: "currency", Type: String, Format: CurrencyCode,
		Meaning: "Currency code (ISO 4217 style, three letters)"}

	createType = Field{Name: "createType", Type: String, Closed: true, Numbered: true, Marker: true,
		Meaning: "Type of the document the invoice was raised from",
		Values: []Value{
			{Name: "SALE_ORDER", Number: 0, Meaning: "sales order"},
			{Name: "SALE_OUT", Number: 1, Meaning: "sales outbound"},
			{Name: "SALE_RETURN", Number: 2, Meaning: "sales return"},
			{Name: "PURCHASE_ORDER", Number: 3, Meaning: "purchase order"},
			{Name: "PURCHASE_RECEIPT", Number: 4, Meaning: "purchase receipt"},
			{Name: "PURCHASE_RETURN", Number: 5, Meaning: "purchase return"},
		}}

	describedInvoice = []Field{
		str("code", "Document code (may be an empty string)"),
		marker(Field{Name: "invoiceType", Type: String, Advisory: true, Meaning: "Invoice type",
			Values: []Value{{Name: "VALUE_ADDED_TAX", Meaning: "value-added tax invoice"}}}),
		str("invoiceTypeCode", "Invoice category code"),
		str("invoiceTitle", "Invoice title"),
		str("invoiceCode", "Invoice number"),
		str("taxCode", "Taxpayer identification number"),
		marker(str("customerCode", "Customer code")),
		marker(str("customerName", "Customer name")),
		str("staffCode", "Issuer's employee number"),
		str("staffName", "Issuer's name"),
		str("applicationCode", "Applicant's employee number"),
		str("applicationName", "Applicant's name"),
		str("comments", "Invoice remark"),
		invoiceCurrency,
		createType,
		{Name: FieldStatus, Type: String, Closed: true, Meaning: "Audit status",
			Values: []Value{
				{Name: StatusPass, Meaning: "approved"},
				{Name: StatusRefusal, Meaning: "rejected"},
			}},
		marker(millis("createTime", "Creation time, milliseconds since the Unix epoch")),
		marker(arrayOf(FieldItems, "Invoice lines",
			str("relatedOrderCode", "Related document number"),
			str("itemCode", "Material code"),
			str("itemName", "Material name"),
			num("quantity", "Quantity of the order line"),
			num("price", "Price"),
			num("tax", "Tax amount"),
			Field{Name: "itemAttributes", Type: Object, Elem: String,
				Meaning: "Material specification, attribute name to attribute value"},
			str("comments", "Line remark"),
		)),
	}

	sampleInvoice = []Field{
		str("code", "Document code (may be an empty string)"),
		str("invoiceTypeCode", "Invoice category code"),
		str("invoiceTitle", "Invoice title"),
		str("taxCode", "Taxpayer identification number"),
		marker(str("enterpriseCode", "Enterprise code (where the description has customerCode)")),
		marker(str("enterpriseName", "Enterprise name (where the description has customerName)")),
		str("staffCode", "Issuer's employee number"),
		str("staffName", "Issuer's name"),
		str("comments", "Invoice remark"),
		invoiceCurrency,
		{Name: FieldStatus, Type: Integer,
			Meaning: "Audit status as a number (values not given; whsim sends 1 approved, 2 rejected)"},
		marker(arrayOf(FieldRecords, "Invoice lines (where the description has items)",
			str("relatedOrderCode", "Related document number"),
			str("itemCode", "Material code"),
			str("itemName", "Material name"),
			num("quantity", "Quantity of the order line"),
			num("price", "Price"),
			str("comments", "Line remark"),
		)),
	}

	receipt = []Field{
		object(ReceiptHeader, "Receipt header",
			str("收款单编号", "Receipt document number"),
			seen(str("单据类型", "Document type"), "销售收款"),
			seen(str("单据状态", "Document status"), "未开始"),
			seen(str("审核状态", "Audit status"), "待提交"),
			seen(str("核销状态", "Write-off status"), "未核销"),
			millis("业务日期", "Business date, milliseconds since the Unix epoch"),
			customerObject("客户名称", "Customer"),
			currencyObject("币别", "Currency"),
			str("币种代码", "Currency display text"),
			currencyObject("本位币", "Base currency"),
			currencyObject("结算币别", "Settlement currency"),
			num("汇率", "Exchange rate"),
			num("币别汇率", "Currency exchange rate"),
			num("结算汇率", "Settlement exchange rate"),
			num("结算币别汇率", "Settlement currency exchange rate"),
			num("应收金额", "Receivable amount"),
			num("应收金额本位币", "Receivable amount in base currency"),
			num("实收金额", "Amount actually received"),
			num("实收金额本位币", "Amount actually received in base currency"),
			num("已核销金额", "Written-off amount"),
			num("未核销金额", "Amount not yet written off"),
			Field{Name: "是否生产凭证", Type: Boolean, Meaning: "Whether an accounting voucher is generated"},
			hidden(num("收款跳转标志", "Receipt jump flag")),
		),
		arrayOf(ReceiptLines, "Receipt detail lines",
			str("编号", "Line number"),
			seen(str("收款用途", "Receipt purpose"), "销售收款"),
			num("应收金额", "Receivable amount"),
			num("收款金额", "Receipt amount"),
			num("实收金额", "Amount actually received"),
			num("现金折扣", "Cash discount"),
			num("折后金额", "Amount after discount"),
			num("长短款", "Overage or shortage"),
			num("手续费", "Handling fee"),
			num("已核销金额", "Written-off amount"),
			num("未核销金额", "Amount not yet written off"),
			hidden(num("已核销金额本位币-隐", "Written-off amount in base currency")),
			hidden(Field{Name: "应收金额本位币-隐", Type: String, Format: Decimal2,
				Meaning: "Receivable amount in base currency (decimal string, two fraction digits)"}),
		),
		arrayOf(ReceiptSources, "Source-document lines",
			str("编号", "Line number"),
			str("源单编号", "Source document number"),
			seen(str("源单类型", "Source document type"), "标准应收单"),
			customerObject("源单客户", "Source document customer"),
			currencyObject("源单币别", "Source document currency"),
			num("应收金额", "Receivable amount"),
			num("本次应收金额", "Receivable amount this time"),
			num("计划应收金额", "Planned receivable amount"),
			millis("到期日", "Due date, milliseconds since the Unix epoch"),
			str("备注", "Remark (may be empty)"),
			hidden(num("未核销金额-隐", "Amount not yet written off")),
		),
	}
)

// Data describes the data object of a document kind in a shape. For
// receipts the described shape leaves out the hidden fields.
func Data(k Kind, s Shape) Field {
	var members []Field
	switch {
	case k == Invoice && s == Sample:
		members = sampleInvoice
	case k == Invoice:
		members = describedInvoice
	case s == Sample:
		members = receipt
	default:
		members = withoutHidden(receipt)
	}
	return Field{Name: FieldData, Type: Object, Meaning: "Event payload: " + string(k), Fields: members}
}

// Body describes the whole request body of an event in a shape: the
// envelope with its data.
func Body(e Event, s Shape) Field {
	return Field{Type: Object, Meaning: e.Meaning, Fields: []Field{
		{Name: FieldRequestID, Type: String, Format: UUID, Meaning: "Request identifier, for debugging only"},
		{Name: FieldBusinessType, Type: Integer, Closed: true, Meaning: "Event number",
			Values: []Value{{Name: e.Name, Number: e.NumberFor(s)}}, Numbered: true},
		Data(e.Kind, s),
	}}
}

func withoutHidden(fields []Field) []Field {
	var out []Field
	for _, f := range fields {
		if f.Hidden {
			continue
		}
		if f.Fields != nil {
			f.Fields = withoutHidden(f.Fields)
		}
		out = append(out, f)
	}
	return out
}
