package anonymize

import (
	"context"
	"strings"
	"testing"
)

// A person's name in pinyin in free text is replaced by another in the
// same order and case; English words and places that look alike are kept
// byte for byte.
func TestPinyinNamesAreReplaced(t *testing.T) {
	t.Parallel()
	// Each row: its name, the text, what must not be left of it ("": the
	// text is kept), and the form it becomes (see matchesNameForm).
	checkFreeText(t, []freeTextRow{
		{"surname first", "联系人 Zhang Wei 电话", "Zhang Wei", "联系人 Aa Aa 电话"},
		{"surname in capitals", "contact ZHANG Wei please", "ZHANG Wei", "contact AA Aa please"},
		{"both in capitals", "PAYEE: ZHANG WEI", "ZHANG WEI", "PAYEE: AA AA"},
		{"given name first", "Wei Zhang will sign.", "Wei Zhang", "Aa Aa will sign."},
		{"given name first, surname in capitals", "signed by Wei ZHANG", "Wei ZHANG", "signed by Aa AA"},
		{"a given name of two syllables", "收货人:Wang Xiaoming", "Wang Xiaoming", "收货人:Aa Aa"},
		{"after Chinese text and before a comma", "请联系Li Na,谢谢", "Li Na", "请联系Aa Aa,谢谢"},
		{"before an email address", "Chen Jie <cj@example.com>", "Chen Jie", "Aa Aa <cj@example.com>"},
		{"two names", "Li Na, Wang Fang", "Wang Fang", "Aa Aa, Aa Aa"},
		// What names nobody stays as it was.
		{"lower case", "zhang wei li na", "", ""},
		{"English words", "Long Range Shipping, He Said, Song Book, Pan Fried, Fan Club, Man Made, Can Do", "", ""},
		{"places written apart", "Hong Kong, Guang Zhou, Shen Zhen, Xi An, Yin Yang", "", ""},
		{"one word", "Mr Zhang called", "", ""},
		{"glued to an identifier", "user_Zhang Wei, Zhang Wei2, Zhang-Wei, Zhang Wei@x, v1.Li Na", "", ""},
		{"two spaces", "Zhang  Wei", "", ""},
		{"mixed case", "ZhAng Wei, Zhang WEI", "", ""},
		{"an enumeration", "VALUE_ADDED_TAX PURCHASE_ORDER PASS", "", ""},
		{"a user agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Go-http-client/1.1", "", ""},
	}, matchesNameForm)
}

// matchesNameForm reports whether s has the form want, where "Aa" stands
// for a word with a capital first and "AA" for one in capitals.
func matchesNameForm(s, want string) bool {
	for want != "" {
		var ok bool
		switch {
		case strings.HasPrefix(want, "AA"):
			s, ok = cutWord(s, upperCase)
			want = want[2:]
		case strings.HasPrefix(want, "Aa"):
			s, ok = cutWord(s, titleCase)
			want = want[2:]
		default:
			ok = s != "" && s[0] == want[0]
			if ok {
				s, want = s[1:], want[1:]
			}
		}
		if !ok {
			return false
		}
	}
	return s == ""
}

// cutWord cuts a word of ASCII letters written in c off the start of s.
func cutWord(s string, c wordCase) (string, bool) {
	n := 0
	for n < len(s) && isLetter(s[n]) {
		n++
	}
	return s[n:], n > 0 && caseOf(s[:n]) == c
}

// A name is one stand-in in each of its orders and cases.
func TestAPinyinNameIsOneStandInInEachForm(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	_, _, s := anonymizeFreeText(t, a, "Zhang Wei / ZHANG Wei / Wei Zhang / ZHANG WEI")
	sur, given, _ := strings.Cut(a.r.Replace(pinyinName, "zhang wei"), " ")
	S, G := strings.ToUpper(sur[:1])+sur[1:], strings.ToUpper(given[:1])+given[1:]
	if want := S + " " + G + " / " + strings.ToUpper(sur) + " " + G + " / " + G + " " + S + " / " + strings.ToUpper(sur+" "+given); s != want {
		t.Errorf("became %q, want %q", s, want)
	}
}

// --check reads the output as anonymizing read the input: a word of the
// lists before a name (Hong Kong Xi, Ling Zhang Wei) can make a name of
// itself and the stand-in's first word, which the check must not take for
// a name left (the stand-in is read as one), nor must a place's second
// word be paired with the word after it.
func TestCheckReadsAPinyinStandInAsAnonymizingDid(t *testing.T) {
	t.Parallel()
	words := []string{"Hong Kong"}
	for _, w := range append(pinyinSurnames[:len(pinyinSurnames):len(pinyinSurnames)], pinyinGiven...) {
		words = append(words, inCase(w, titleCase))
	}
	for _, w := range words {
		for _, name := range []string{"Zhang Wei", "Xi Na", "Wei ZHANG"} {
			a := newTestAnonymizer(t, testKey)
			text := w + " " + name
			_, out, s := anonymizeFreeText(t, a, text)
			if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
				t.Errorf("%q became %q, in which --check finds %v", text, s, leaks)
			}
		}
	}
}

// A stand-in is never a name the search finds: its given name's
// syllables are none of the search's, however they are put together, so
// a real name met later in the capture (Li Na) is never taken for a
// stand-in it equals and left as it was.
func TestPinyinStandInsAreNoNameTheSearchFinds(t *testing.T) {
	t.Parallel()
	for _, a := range standInGiven {
		for _, b := range append([]string{""}, standInGiven...) {
			if syllables(pinyinGiven, a+b) {
				t.Errorf("the stand-in given name %s%s is one the search finds", a, b)
			}
		}
	}
	a := newTestAnonymizer(t, testKey)
	for _, name := range []string{"zhang wei", "li na", "wang xiaoming", "chen jie", "liu yang"} {
		sur, given, _ := strings.Cut(a.r.Replace(pinyinName, name), " ")
		if kind, _, _ := pinyinNameOf(inCase(sur, titleCase), inCase(given, titleCase)); kind != standInForm {
			t.Errorf("%s became %s %s, read as %v, want a stand-in's form", name, sur, given, kind)
		}
	}
}

// A real name that equals the stand-in drawn for a name before it (under
// the test key, Zhang Wei's was once Yan Huafei) is replaced all the
// same, and --check agrees.
func TestARealPinyinNameEqualToAnEarlierStandInIsReplaced(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	body, out, s := anonymizeFreeText(t, a, "Zhang Wei, Yan Huafei")
	if strings.Contains(s, "Zhang Wei") || strings.Contains(s, "Yan Huafei") {
		t.Errorf("became %q", s)
	}
	checkAgrees(t, a, "two names", body, out)
}
