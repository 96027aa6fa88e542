package fake

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

var when = time.Date(2026, 3, 17, 18, 30, 0, 0, time.UTC) // 2026-03-18 02:30 in Shanghai

// draws calls every drawing method n times and records what came out.
func draws(f *Faker, n int) []string {
	var out []string
	add := func(v ...any) { out = append(out, fmt.Sprint(v...)) }
	for range n {
		k := f.InvoiceKind()
		seller := f.Company()
		code, num := f.InvoiceNumber(k, when, seller)
		m := f.Material()
		add(f.PersonName(), f.CompanyName(), f.USCC(), f.EmployeeCode(), f.CustomerCode(),
			f.MaterialCode(), m, k, seller, code, num, LevyRate(when), f.Currency(),
			f.DocNumber("SKD", when), f.Quantity(), f.UnitPrice(), f.Remark(), f.Company(),
			f.QuantityFor(m), f.UnitPriceFor(m), f.Rand().IntN(1000))
	}
	return out
}

func TestDeterminism(t *testing.T) {
	a := draws(New(42), 200)
	b := draws(New(42), 200)
	if !slices.Equal(a, b) {
		t.Fatal("two Fakers seeded 42 drew different values")
	}
	c := draws(New(43), 200)
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 42 and 43 agree on %d of %d draws", same, len(a))
	}
}

func isCJK(r rune) bool { return unicode.Is(unicode.Han, r) }

func TestShapes(t *testing.T) {
	digital := regexp.MustCompile(`^26(11|12|21|31|32|33|34|35|37|41|42|43|44|50|51|61)[12]\d{15}$`)
	code10 := regexp.MustCompile(`^\d{4}26[1-4][1356][23]0$`)
	code12 := regexp.MustCompile(`^0\d{4}26\d{3}(04|05|06|07|11|12|13)$`)
	doc := regexp.MustCompile(`^SKD(20260318\d{4}|\d{8})$`)
	emp := regexp.MustCompile(`^(\d{4}|\d{6}|E\d{5}|YG\d{4})$`)
	mat := regexp.MustCompile(`^(\d{9}|\d{2}(\.\d{2}){3,4})$`)
	for seed := uint64(1); seed <= 2000; seed++ {
		f := New(seed)
		name := f.PersonName()
		if n := utf8.RuneCountInString(name); n < 2 || n > 4 || strings.IndexFunc(name, func(r rune) bool { return !isCJK(r) }) >= 0 {
			t.Errorf("seed %d: name %q", seed, name)
		}
		co := f.CompanyName()
		if strings.IndexFunc(co, func(r rune) bool { return !isCJK(r) && r != '（' && r != '）' }) >= 0 ||
			!slices.ContainsFunc(orgForms[:], func(s string) bool { return strings.HasSuffix(co, s) }) {
			t.Errorf("seed %d: company %q", seed, co)
		}
		seller := f.Company()
		for _, k := range invoiceKinds[:] {
			code, num := f.InvoiceNumber(k, when, seller)
			switch {
			case k.Digital:
				if code != "" || !digital.MatchString(num) {
					t.Errorf("seed %d: %s → %q %q", seed, k.TypeCode, code, num)
				}
			case len(num) != 8 || strings.Trim(num, "0123456789") != "" ||
				!(code10.MatchString(code) || code12.MatchString(code)):
				t.Errorf("seed %d: %s → %q %q", seed, k.TypeCode, code, num)
			case k.TypeCode == "01" && !code10.MatchString(code), k.TypeCode == "08" && !strings.HasSuffix(code, "13"):
				t.Errorf("seed %d: %s → code %q of the wrong family", seed, k.TypeCode, code)
			}
		}
		c := f.Currency()
		if c.Name == "" || len(c.Code) != 3 || c.Rate.Scale != 4 || c.Rate.Units <= 0 ||
			(c.Code == "CNY") != (c.Rate == Decimal{10000, 4}) {
			t.Errorf("seed %d: currency %+v", seed, c)
		}
		if s := f.DocNumber("SKD", when); !doc.MatchString(s) {
			t.Errorf("seed %d: doc number %q", seed, s)
		}
		if s := f.EmployeeCode(); !emp.MatchString(s) {
			t.Errorf("seed %d: employee code %q", seed, s)
		}
		if s := f.CustomerCode(); len(s) != 8 || strings.Trim(s, "0123456789") != "" {
			t.Errorf("seed %d: customer code %q", seed, s)
		}
		if s := f.MaterialCode(); !mat.MatchString(s) {
			t.Errorf("seed %d: material code %q", seed, s)
		}
		m := f.Material()
		if m.Name == "" || m.Unit == "" || len(m.Attrs) < 1 || len(m.Attrs) > 3 {
			t.Errorf("seed %d: material %+v", seed, m)
		}
		for _, a := range m.Attrs {
			if a.Key == "" || a.Value == "" || strings.ContainsAny(a.Value, "|;:") {
				t.Errorf("seed %d: material %q attribute %+v", seed, m.Name, a)
			}
		}
		q := f.Quantity()
		if (q.Scale != 0 && q.Scale != 2) || q.Units <= 0 || q.Float64() > 1000 {
			t.Errorf("seed %d: quantity %v", seed, q)
		}
		for _, p := range []Decimal{f.UnitPrice(), f.UnitPriceFor(m)} {
			if p.Scale != 2 || p.Units < 50 || p.Units > 2000000 {
				t.Errorf("seed %d: price %v for %s", seed, p, m.Name)
			}
		}
	}
}

// TestAttrOrder checks that attributes keep the canonical key order.
func TestAttrOrder(t *testing.T) {
	order := []string{"颜色", "尺寸", "规格", "型号", "材质", "品牌", "批次号"}
	f := New(7)
	for range 5000 {
		m := f.Material()
		last := -1
		for _, a := range m.Attrs {
			i := slices.Index(order, a.Key)
			if i <= last {
				t.Fatalf("%s: attributes %+v out of order or unknown", m.Name, m.Attrs)
			}
			last = i
		}
	}
	if len(materials) < 30 {
		t.Errorf("only %d materials", len(materials))
	}
}

// TestDistributions checks the weights land near the documented shares.
func TestDistributions(t *testing.T) {
	const n = 100000
	f := New(1)
	var top5, three, cny, empty, digital int
	for range n {
		name := f.PersonName()
		if strings.ContainsAny(name[:3], "王李张刘陈") && !strings.HasPrefix(name, "欧阳") {
			top5++
		}
		if utf8.RuneCountInString(name) == 3 {
			three++
		}
		if f.Currency().Code == "CNY" {
			cny++
		}
		if f.Remark() == "" {
			empty++
		}
		if f.InvoiceKind().Digital {
			digital++
		}
	}
	tests := []struct {
		what   string
		got    int
		lo, hi float64
	}{
		{"top-5 surnames", top5, 0.29, 0.33},
		{"three-character names", three, 0.62, 0.71},
		{"CNY", cny, 0.73, 0.77},
		{"empty remarks", empty, 0.38, 0.42},
		{"数电 kinds", digital, 0.65, 0.71},
	}
	for _, tt := range tests {
		if p := float64(tt.got) / n; p < tt.lo || p > tt.hi {
			t.Errorf("%s: %.3f, want %.2f–%.2f", tt.what, p, tt.lo, tt.hi)
		}
	}
}

func TestCurrencyByCode(t *testing.T) {
	f := New(1)
	tests := []struct {
		code, name, rate string
		ok               bool
	}{
		{"CNY", "人民币", "1.0000", true},
		{"USD", "美元", "7.1750", true},
		{"JPY", "日元", "0.0485", true},
		{"XXX", "", "", false},
	}
	for _, tt := range tests {
		c, ok := f.CurrencyByCode(tt.code)
		if ok != tt.ok || c.Name != tt.name || (ok && c.Rate.String() != tt.rate) {
			t.Errorf("CurrencyByCode(%q) = %+v, %v", tt.code, c, ok)
		}
	}
	// A lookup must not consume randomness.
	a, b := New(5), New(5)
	a.CurrencyByCode("USD")
	if a.USCC() != b.USCC() {
		t.Error("CurrencyByCode drew from the source")
	}
}

func TestInvoiceKindByCode(t *testing.T) {
	for _, tt := range []struct {
		code    string
		digital bool
		ok      bool
	}{{"81", true, true}, {"01", false, true}, {"84", true, true}, {"99", false, false}} {
		k, ok := invoiceKindByCode(tt.code)
		if ok != tt.ok || k.Digital != tt.digital || (ok && k.Name == "") {
			t.Errorf("InvoiceKindByCode(%q) = %+v, %v", tt.code, k, ok)
		}
	}
}

func TestDocNumberShanghaiDate(t *testing.T) {
	// 2026-03-31 16:30 UTC is already April 1st in Shanghai.
	at := time.Date(2026, 3, 31, 16, 30, 0, 0, time.UTC)
	for seed := uint64(1); seed < 50; seed++ {
		s := New(seed).DocNumber("CGDD", at)
		if len(s) == 16 && !strings.HasPrefix(s, "CGDD20260401") {
			t.Errorf("DocNumber = %q, want the Shanghai date 20260401", s)
		}
	}
}

func BenchmarkMaterial(b *testing.B) {
	f := New(1)
	b.ReportAllocs()
	for b.Loop() {
		f.Material()
	}
}

func BenchmarkDraws(b *testing.B) {
	f := New(1)
	b.ReportAllocs()
	for b.Loop() {
		f.PersonName()
		f.CompanyName()
		k := f.InvoiceKind()
		f.InvoiceNumber(k, when, f.Company())
		f.DocNumber("SKD", when)
		f.Currency()
		f.Quantity().Mul(f.UnitPrice(), 2)
	}
}

// A stand-in never equals what the generator draws: anonymize relies on it
// so that no generated original can come back as someone's stand-in.
func TestStandInsNeverEqualGeneratedNames(t *testing.T) {
	gen, alt := New(1), New(2)
	names, companies := map[string]bool{}, map[string]bool{}
	for range 200000 {
		names[gen.PersonName()] = true
		companies[gen.CompanyName()] = true
	}
	for range 20000 {
		if n := alt.StandInName(); names[n] || len([]rune(n)) < 3 {
			t.Fatalf("stand-in name %q is one the generator draws (or too short)", n)
		}
		if c := alt.StandInCompany(); companies[c] {
			t.Fatalf("stand-in company %q is one the generator draws", c)
		}
	}
}

// A Faker never gives a document number or an invoice number twice: a
// run's documents (generate --count 150 printed two receipts numbered
// alike) are each a document of their own, as an ERP numbers them, however
// many fall on one day. Each keeps its form: a dated number its date and
// four digits after it, a running one eight, an invoice's its length.
func TestNumbersAreNeverGivenTwice(t *testing.T) {
	t.Parallel()
	f := New(7)
	days := []time.Time{when, when.AddDate(0, 0, 1)}
	seen := map[string]bool{}
	for i := range 10_000 {
		n := f.DocNumber("SKD", days[i%2])
		if seen[n] {
			t.Fatalf("document number %s twice, the %dth", n, i+1)
		}
		seen[n] = true
		if len(n) != 3+12 && len(n) != 3+8 {
			t.Fatalf("document number %s: not PREFIX+yyyyMMdd+4 digits nor PREFIX+8", n)
		}
	}
	for _, code := range []string{"81", "01"} {
		k, _ := invoiceKindByCode(code)
		seller := f.Company()
		for i := range 5_000 {
			c, n := f.InvoiceNumber(k, when, seller)
			if seen[c+"/"+n] {
				t.Fatalf("invoice %s %s twice, the %dth", c, n, i+1)
			}
			seen[c+"/"+n] = true
		}
	}
}

// TestOwnStepsOverGivenRuns: numbers drawn again and again in a range
// that filled up come out as an ERP would number them (the next one not
// given, then from the first, then one digit longer) for a few lookups
// each: one lookup per number passed made a run cost the whole run so
// far per document, and generate --count 160000 never finished.
func TestOwnStepsOverGivenRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		width        int
		least, drawn uint64
		count        int
		want         func(i int) uint64
	}{
		{"every draw the first number", 8, 1, 1, 5_000, func(i int) uint64 { return uint64(1 + i) }},
		{"to width's end, from the first, then longer", 2, 1, 50, 150, func(i int) uint64 {
			switch {
			case i < 50:
				return uint64(50 + i)
			case i < 99:
				return uint64(i - 49)
			}
			return uint64(100 + i - 99)
		}},
		{"from zero", 2, 0, 99, 102, func(i int) uint64 {
			switch {
			case i == 0:
				return 99
			case i < 100:
				return uint64(i - 1)
			}
			return uint64(i)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := New(1)
			for i := range tt.count {
				want := "SKD" + string(appendPad(nil, tt.want(i), tt.width))
				if got := f.own([]byte("SKD"), tt.drawn, tt.width, tt.least); got != want {
					t.Fatalf("number %d: got %s, want %s", i+1, got, want)
				}
			}
			if limit := 8 * uint64(tt.count); f.given.probes > limit {
				t.Errorf("%d numbers took %d lookups, want at most %d", tt.count, f.given.probes, limit)
			}
		})
	}
}

// TestNumbersCostAFewBytesEach: the numbers a Faker keeps so as to give
// none twice cost it a few bytes each, not a map entry each: generate
// --count 1000000 held its 2.3 million receipt numbers in 168 MB, and a
// few million payloads for a load test needed gigabytes. It reads the heap
// the Faker keeps after a run of numbers (live bytes, not time), and so
// runs alone, not in parallel.
func TestNumbersCostAFewBytesEach(t *testing.T) {
	const count = 300_000
	f := New(1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range count {
		// A run's receipts fall on some sixty days, dated or running.
		f.DocNumber("SKD", when.AddDate(0, 0, -(i%60)))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(f)
	perNumber := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / count
	t.Logf("%d numbers kept in %.2f bytes each", count, perNumber)
	if perNumber > 8 {
		t.Errorf("%d numbers kept in %.1f bytes each, want at most 8", count, perNumber)
	}
}
