package fake

import (
	"strings"
	"testing"
	"time"
)

// TestInvoiceNumberCarriesTheSellersRegion: the tax authority of the seller
// numbers its invoices, so a legacy 发票代码 carries the seller's 4-digit tax
// region (a 计划单列市's own) and a 数电 number the seller's province.
func TestInvoiceNumberCarriesTheSellersRegion(t *testing.T) {
	tests := []struct{ city, taxRegion, province string }{
		{"上海", "3100", "31"},
		{"深圳", "4403", "44"},
		{"广州", "4400", "44"},
		{"东莞", "4400", "44"},
		{"宁波", "3302", "33"},
		{"杭州", "3300", "33"},
		{"昆山", "3200", "32"},
		{"厦门", "3502", "35"},
		{"青岛", "3702", "37"},
		{"大连", "2102", "21"},
		{"沈阳", "2100", "21"},
	}
	for _, tt := range tests {
		i := -1
		for j := range regions {
			if regions[j].city == tt.city {
				i = j
			}
		}
		if i < 0 {
			t.Errorf("no region %s", tt.city)
			continue
		}
		seller := Company{home: &regions[i]}
		f := New(uint64(i + 1))
		for range 50 {
			for _, k := range invoiceKinds[:] {
				code, num := f.InvoiceNumber(k, when, seller)
				switch {
				case k.Digital && num[2:4] != tt.province:
					t.Errorf("%s seller, kind %s: number %s, want province %s in digits 3–4", tt.city, k.TypeCode, num, tt.province)
				case len(code) == 10 && code[:4] != tt.taxRegion, len(code) == 12 && code[1:5] != tt.taxRegion:
					t.Errorf("%s seller, kind %s: code %s, want tax region %s", tt.city, k.TypeCode, code, tt.taxRegion)
				}
			}
		}
	}
}

// TestCompanyIsOfOneRegion: a company's name carries the city of the
// district its tax id names, and a 商行 files as a 个体工商户.
func TestCompanyIsOfOneRegion(t *testing.T) {
	f := New(3)
	for range 5000 {
		c := f.Company()
		if !strings.Contains(c.home.districts, c.TaxID[2:8]) || !strings.Contains(c.Name, c.home.city) {
			t.Fatalf("%+v: name, tax id and region disagree", c)
		}
		if sole := strings.HasSuffix(c.Name, "商行"); sole != (c.TaxID[:2] == "92") {
			t.Fatalf("%s files as %s", c.Name, c.TaxID[:2])
		}
	}
}

// TestSmallScaleSellers: the 商行 levy a small-scale rate, some 5% of
// companies, the share of 3%/1% levies on a trading firm's purchase
// invoices (domain notes §3).
func TestSmallScaleSellers(t *testing.T) {
	const n = 20000
	f := New(9)
	small := 0
	for range n {
		c := f.Company()
		if c.SmallScale != strings.HasSuffix(c.Name, "商行") {
			t.Fatalf("%s: small-scale %v", c.Name, c.SmallScale)
		}
		if c.SmallScale {
			small++
		}
	}
	if p := float64(small) / n; p < 0.04 || p > 0.06 {
		t.Errorf("%.3f of companies small-scale, want about 5%%", p)
	}
}

func TestLevyRate(t *testing.T) {
	for _, tt := range []struct {
		at   time.Time
		want int
	}{
		{time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), 1},
		{time.Date(2027, 12, 31, 15, 59, 0, 0, time.UTC), 1}, // 23:59 in Shanghai
		{time.Date(2027, 12, 31, 16, 0, 0, 0, time.UTC), 3},  // 2028-01-01 in Shanghai
	} {
		if got := LevyRate(tt.at); got != tt.want {
			t.Errorf("LevyRate(%s) = %d, want %d", tt.at, got, tt.want)
		}
	}
}
