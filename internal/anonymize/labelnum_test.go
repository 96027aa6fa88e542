package anonymize

import (
	"testing"
)

// A landline run together or without its area code, and a taxpayer id of
// an old or a sole trader's length, written after their label (电话, 传真,
// Tel; 税号, 纳税人识别号) are replaced, in the original's form; a date,
// an amount, a short number and a word that only starts like a label are
// kept byte for byte.
func TestPhonesAndTaxIDsAfterTheirLabelAreReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"a landline run together", "电话02162345678", "02162345678", "电话02199999999"},
		{"a local number after 传真", "传真：62345678，谢谢", "62345678", "传真：99999999，谢谢"},
		{"an extension after it", "Tel: 057188886666-8001", "057188886666", "Tel: 999999999999-8001"},
		{"a service number", "电话号码 4008108888", "4008108888", "电话号码 9999999999"},
		{"Phone No.", "Phone No. 62345678", "62345678", "Phone No. 99999999"},
		{"full-width", "电话：０２１６２３４５６７８", "０２１６２３４５６７８", "电话：０２１９９９９９９９９"},
		{"an old taxpayer number", "税号310104710932064", "310104710932064", "税号999999999999999"},
		{"after 税务登记号", "税务登记号：440300123456789。", "440300123456789", "税务登记号：999999999999999。"},
		{"in English", "Tax ID 310104710932064", "310104710932064", "Tax ID 999999999999999"},
		// What names nobody stays as it was.
		{"dates, amounts and words", "电话 2026-03-18，电话费 150000000 元，税号 1500.00，Tel 123，hotel 62345678，Telnet 62345678，传真件 12345678，税号未填，电话 62345678元", "", ""},
		{"a code glued to it", "税号 310104710932064ab，电话 62345678x，税号 3101047109320641234567", "", ""},
	}, matchesForm)
}

// A field named for a phone or a tax id (contactTel, 电话, 税号,
// buyerTaxNo) labels its value, a string or a JSON number; a name that
// only ends like one (hotel, smartphone) does not.
func TestPhonesAndTaxIDsUnderTheirFieldsNameAreReplaced(t *testing.T) {
	t.Parallel()
	checkKeyedValues(t, []keyedValue{
		{"camel case", "contactTel", `"62345678"`, "62345678", `"99999999"`},
		{"a Chinese name", "联系电话", `"02162345678"`, "02162345678", `"02199999999"`},
		{"a JSON number", "电话", `62345678`, "62345678", `99999999`},
		{"a tax id", "购方税号", `"310104710932064"`, "310104710932064", `"999999999999999"`},
		{"a tax id as a JSON number", "buyerTaxNo", `310104710932064`, "310104710932064", `999999999999999`},
		// What names nobody stays as it was.
		{"a word ending so", "hotel", `"62345678"`, "", ""},
		{"another", "smartphone", `62345678`, "", ""},
		{"an amount", "电话费", `"150000000"`, "", ""},
	})
}
