package anonymize

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/taxid"
)

// A landline number in free text, as people write one, is replaced: the
// area code kept, the local number another of its length, the brackets,
// separators and full-width digits where they were. The numbers that look
// alike and name nobody are kept byte for byte.
func TestLandlineNumbersAreReplaced(t *testing.T) {
	t.Parallel()
	// Each row: its name, the text, what must not be left of it ("": the
	// text is kept), and the form it becomes (see matchesForm).
	checkFreeText(t, []freeTextRow{
		{"area code and hyphen", "联系电话021-62345678，找财务", "62345678", "联系电话021-99999999，找财务"},
		{"four-digit area code, seven digits", "tel 0571-8888666 ext", "8888666", "tel 0571-9999999 ext"},
		{"with a space", "电话 010 62345678", "62345678", "电话 010 99999999"},
		{"in brackets", "电话(0755)26668888", "26668888", "电话(0755)99999999"},
		{"in full-width brackets and digits", "电话（０２１）６２３４５６７８。", "６２３４５６７８", "电话（０２１）９９９９９９９９。"},
		{"with an extension", "总机021-62345678-8021", "62345678", "总机021-99999999-8021"},
		{"a 400 number", "客服400-810-8888", "810-8888", "客服400-999-9999"},
		{"an 800 number with spaces", "hotline 800 820 8820!", "820 8820", "hotline 800 999 9999!"},
		{"at the start", "0512-65432100", "65432100", "0512-99999999"},
		{"a local number in two groups", "名片：021 6234 5678 / (0571) 888 6666", "6234 5678", "名片：021 9999 9999 / (0571) 999 9999"},
		{"full-width in two groups", "电话（０７５５）８８８８　６６６６", "８８８８　６６６６", "电话（０７５５）９９９９　９９９９"},
		// What names nobody stays as it was.
		{"a date", "2024-03-18 10:30", "", ""},
		{"an invoice code run together", "开票044031900111", "", ""},
		// Run together, a landline is no shape of its own (an invoice
		// code is written so); after its label, labelnum.go finds it.
		{"numbers run together", "code 02162345678, 开票044031900111", "", ""},
		{"inside a code", "SKD-021-62345678 A0571-8888666", "", ""},
		{"a local number of a 1", "021-12345678", "", ""},
		{"an amount after it", "0571 8888666.50", "", ""},
		{"grouped otherwise", "400-8108-888, 800-82-08820", "", ""},
		{"a local number in other groups", "021 62 345678, 021 6234 567", "", ""},
		// An account's stand-in of an account that began with 0 once
		// read so, a false leak of --check (FuzzFreeTextShapes).
		{"the first groups of a longer number", "尺寸 0829 7779 4199 9299 5248", "", ""},
		{"no area code", "029 1234567, 099 62345678, 01 62345678", "", ""},
		// Groups of a longer number written in groups (a tax id's, whose
		// stand-in --check must not read as a landline).
		{"inside a number in groups", "尺寸 1200 0302 5645 3071 mm, 订单 2026 0571 8888 6666 号", "", ""},
		{"two landlines one after the other", "电话 021-62345678 0571-88886666", "88886666", "电话 021-99999999 0571-99999999"},
		// The international form: the country code, then the area code
		// without its 0.
		{"+86 and spaces", "电话 +86 21 5555 1234", "5555 1234", "电话 +86 21 9999 9999"},
		{"+86 and hyphens", "tel +86-10-62345678", "62345678", "tel +86-10-99999999"},
		{"0086", "0086 571 8888 6666 ext", "8888 6666", "0086 571 9999 9999 ext"},
		{"+86 in brackets", "(+86) 21-62345678", "62345678", "(+86) 21-99999999"},
		{"the trunk 0 in brackets", "+86 (0)21 6234 5678", "6234 5678", "+86 (0)21 9999 9999"},
		{"the area code in brackets", "+86 (755) 26668888", "26668888", "+86 (755) 99999999"},
		{"the area code with its 0", "+86 021-62345678", "62345678", "+86 021-99999999"},
		{"full-width", "＋８６　２１　６２３４５６７８", "６２３４５６７８", "＋８６　２１　９９９９９９９９"},
		{"a local number of a 1 after +86", "+86 21 12345678", "", ""},
		{"run together after +86", "+86 2162345678", "", ""},
		{"no area code after +86", "+86 99 62345678, +86 1 62345678", "", ""},
		{"glued to a word before +86", "v1.2+86 21 62345678", "", ""},
		{"an amount after +86", "+86 571 8888 6666.50", "", ""},
	}, matchesForm)
}

// matchesForm reports whether s has the form want: a 9 in want stands for
// any digit, a ９ for any full-width digit, and every other character for
// itself.
func matchesForm(s, want string) bool {
	rs, ws := []rune(s), []rune(want)
	if len(rs) != len(ws) {
		return false
	}
	for i, w := range ws {
		switch r := rs[i]; {
		case w == '9' && r >= '0' && r <= '9', w == '９' && r >= '０' && r <= '９', w == r:
		default:
			return false
		}
	}
	return true
}

// A landline written in the international form and in the national form
// is one number with one stand-in, each written in its own form.
func TestALandlinesInternationalFormHasItsNationalStandIn(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	_, _, s := anonymizeFreeText(t, a, "电话 021-62345678 / +86 21 6234 5678")
	local := a.r.Replace(landline, "02162345678")[3:]
	if want := "电话 021-" + local + " / +86 21 " + local[:4] + " " + local[4:]; s != want {
		t.Errorf("became %q, want %q", s, want)
	}
}

// --check reads the output as anonymizing read the input: a landline's
// stand-in claims its span there too, so its digits and the group after
// them are never read as another identifier that anonymizing never saw
// (here a tax id of digits whose check characters hold).
func TestCheckReadsALandlinesStandInAsAnonymizingDid(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	const orig = "(021)62345678"
	local := a.r.Replace(landline, "02162345678")[3:]
	// Ten digits after it that make the stand-in's local number and them
	// a tax id whose check characters hold.
	group := ""
	for n := 0; n < 100000000 && group == ""; n++ {
		g := fmt.Sprintf("%08d", n)
		o, err := taxid.OrgCodeCheck(g)
		if err != nil || o > '9' {
			continue
		}
		if u, err := taxid.USCCCheck(local + g + string(o)); err == nil && u <= '9' {
			group = g + string(o) + string(u)
		}
	}
	if !taxid.ValidUSCC(local+group) || identifierClass(local+group) != TaxID {
		t.Fatalf("no tax id made of %s and ten digits", local)
	}
	x, _ := json.Marshal("电话 " + orig + " " + group)
	out, _, err := a.Payload([]byte(`{"businessType":4010,"data":{"x":` + string(x) + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), local+" "+group) {
		t.Fatalf("the landline's stand-in %s is not in %s", local, out)
	}
	if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
		t.Errorf("--check finds %v in %s, which anonymizing left as it was", leaks, out)
	}
}
