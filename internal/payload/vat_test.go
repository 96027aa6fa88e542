package payload_test

import "strings"

// The VAT rate of a line, as a Chinese accountant checks it (domain notes
// §3, Ann. 2019 No.39 and Ann. 2023 No.19), from tables of its own rather
// than the generator's: goods sell at 13%; grain, edible oil, salt, tap
// water, gas, books, feed, fertiliser, pesticide, farm machinery and film
// at 9%; 6% is for services, which no purchase order of goods carries; a
// small-scale taxpayer (here a 商行, a sole trader's shop) levies 3%, 1%
// until 2027-12-31, whatever the goods.

// ninePercentGoods are goods of the 9% list a purchase ledger receives.
var ninePercentGoods = []string{"大米", "面粉", "食用植物油", "食用盐", "液化石油气", "天然气", "图书", "报纸", "杂志",
	"饲料", "复合肥", "尿素", "农药", "农机", "农膜", "自来水"}

// ratesFor are the rates (in percent) a line of item sold by seller may
// carry.
func ratesFor(item, seller string) []int64 {
	if strings.HasSuffix(seller, "商行") {
		return []int64{1, 3}
	}
	for _, g := range ninePercentGoods {
		if strings.Contains(item, g) {
			return []int64{9}
		}
	}
	return []int64{13}
}
