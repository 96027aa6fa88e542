package anonymize

import (
	"strings"

	"github.com/whsim/whsim/internal/fake"
)

// A person's name written in pinyin (a contact in a remark, the signer of
// an English note, a header: Zhang Wei, ZHANG Wei, Wei Zhang, Wang
// Xiaoming) names a person as the characters do. No shape tells a word
// of pinyin from an English one (He, Long, Song, Fan and Pan are
// surnames), so a name is found only as two words, one after the other
// with one space between them, where one is a common surname and the
// other a given name of one or two common given-name syllables (Wei,
// Xiaoming), in the order either way; the surname written with a
// capital first (Zhang) or in capitals (ZHANG), the given name with a
// capital first, or in capitals where the surname is (ZHANG WEI). A
// lower-case word, a word glued to another by a letter, a digit or one
// of "_-.@/\#%&+$'", and a place written so (Hong Kong, Guang Zhou) are
// not. The name becomes another, written in the same order and case; a
// name is one stand-in in each of its orders and cases. A stand-in's given
// name is drawn from syllables the search leaves out (Chunmiao, Xing), so
// that it never is a name the capture holds and the search would find
// later (a real Li Na left as it was, taken for the stand-in it equals).

// pinyinName is the class of a person's name written in pinyin.
const pinyinName class = "pinyin name"

// pinyinSurnames are common surnames; pinyinGiven the syllables common in
// given names, leaving out the English words that are often written with
// a capital (Man, Can, Long, Song...).
var (
	pinyinSurnames = strings.Fields(`wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he
		gao lin luo zheng liang xie song tang han feng deng cao peng zeng xiao tian dong yuan pan yu jiang
		cai du ye cheng wei su lu ding ren shen yao jin fu zhong cui tan liao fan shi jia xia fang kong bai
		qin qiu hou yin xue yan duan lei long tao mao hao gu meng qian wan dai xiang chang kang niu lai qiao
		wen bao zou shao hong gong`)
	pinyinGiven = strings.Fields(`wei fang na min jing li qiang lei jun yang yong yan jie juan tao ming
		chao xiu xia ping gang hua hui hong lin bo ling xin yu hao yi jian feng peng qing zhen ying lan mei
		xiao dong hai bin kai zhi wen rui qian ting xue shu yun fei liang cheng guo zi xuan jia chen kun
		xiang zhong qi shan ning yue rong ru shuang jiao ran hang zhe zhuo heng yao xi tian`)
	// standInGiven are the syllables of stand-ins' given names: real ones,
	// none of them in pinyinGiven, so that no stand-in is a name the
	// search finds (TestPinyinStandInsAreNoNameTheSearchFinds).
	standInGiven = strings.Fields(`chun miao huan xing pei tong meng nan lu xu gui wan qiu sen zhu kang
		lang yin cui shun`)
	// notNames are pairs of the lists' words that are a place or a word
	// of another sort, written apart.
	notNames = strings.Fields(`hong-kong yin-yang guang-zhou hang-zhou su-zhou fu-zhou xu-zhou zheng-zhou
		lan-zhou gui-zhou wen-zhou tai-zhou jin-zhou shen-zhen xi-an bei-jing nan-jing tian-jin shang-hai
		chong-qing cheng-du wu-han`)
)

// pinyinNames returns s with each name in pinyin replaced by its stand-in
// and the text between them searched by rest. In a check it returns s and
// records each one as a leak.
func (p *pass) pinyinNames(s string, rest func(string) string) string {
	if !hasCapital(s) {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		if !isLetter(s[i]) || i > 0 && nameGlue(s[i-1]) {
			p.tick(1)
			i++
			continue
		}
		x := pinyinPairAt(s, i)
		p.tick(x.j - i)
		switch {
		case x.kind == placeName: // a place (Hong Kong) is one, its second word no surname
			i = x.k
		case x.kind == noName, x.kind == standInForm && !p.a.r.dict.isStandIn(x.key):
			i = x.j
		default:
			// A word before a stand-in can make a name of it and its
			// first word (Hong Kong Xi can become Hong Song Chunmiao, in
			// which Hong Song is a name): the stand-in is read as the
			// name it is, as anonymizing read what it replaced.
			if next := pinyinPairAt(s, x.j+1); next.kind != noName && !p.a.r.dict.isStandIn(x.key) && p.a.r.dict.isStandIn(next.key) {
				i = x.j
				continue
			}
			w.claimForm(i, x.k, pinyinName, x.key, x.form)
			i = x.k
		}
	}
	return w.text()
}

// pairKind is what two words of pinyin are.
type pairKind int

const (
	noName      pairKind = iota
	realName             // a name the search finds
	standInForm          // a name of a stand-in's form (one when it is one)
	placeName            // a place written so (Hong Kong)
)

// pinyinPair is two words, s[i:j] and s[j+1:k]: what they are, and when
// they are a name its key and how a stand-in is written in their form.
type pinyinPair struct {
	j, k int
	kind pairKind
	key  string
	form func(orig, standIn string) string
}

// pinyinPairAt reads the word that starts at s[i] and the one after it
// and a space.
func pinyinPairAt(s string, i int) pinyinPair {
	j := i
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	if j+1 >= len(s) || s[j] != ' ' || !isLetter(s[j+1]) {
		return pinyinPair{j: j, k: j}
	}
	k := j + 1
	for k < len(s) && isLetter(s[k]) {
		k++
	}
	if k < len(s) && nameGlue(s[k]) && !(s[k] == '.' && (k+1 == len(s) || !wordChar(s[k+1]))) {
		return pinyinPair{j: j, k: k}
	}
	kind, key, form := pinyinNameOf(s[i:j], s[j+1:k])
	return pinyinPair{j: j, k: k, kind: kind, key: key, form: form}
}

// hasCapital reports whether s holds an ASCII capital, which every name
// in pinyin starts with.
func hasCapital(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// nameGlue reports whether c, next to a word, makes it part of a longer
// token (an identifier, a path, an address, a number).
func nameGlue(c byte) bool {
	return wordChar(c) || strings.IndexByte("_-.@/\\#%&+$'", c) >= 0
}

// wordCase is how a word of a name is written.
type wordCase int

const (
	noCase    wordCase = iota
	titleCase          // Zhang
	upperCase          // ZHANG
)

func caseOf(w string) wordCase {
	if len(w) < 2 || w[0] < 'A' || w[0] > 'Z' {
		return noCase
	}
	upper, lower := true, true
	for i := 1; i < len(w); i++ {
		upper = upper && w[i] >= 'A' && w[i] <= 'Z'
		lower = lower && w[i] >= 'a' && w[i] <= 'z'
	}
	switch {
	case upper:
		return upperCase
	case lower:
		return titleCase
	}
	return noCase
}

// maxPinyinWord is the longest word of a name: a given name of two
// syllables of six letters (zhuang, shuang).
const maxPinyinWord = 12

// pinyinNameOf returns the key of the name written as the words a and b
// (its surname and given name, in lower case: "zhang wei"), and how its
// stand-in is written in their form; "" when they are no name.
func pinyinNameOf(a, b string) (kind pairKind, key string, form func(orig, standIn string) string) {
	// The longest of the lists' names is far shorter: a longer word is
	// none, and is not looked at letter by letter.
	if len(a) > maxPinyinWord || len(b) > maxPinyinWord {
		return noName, "", nil
	}
	ca, cb := caseOf(a), caseOf(b)
	if ca == noCase || cb == noCase {
		return noName, "", nil
	}
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if containsWord(notNames, la+"-"+lb) {
		return placeName, "", nil
	}
	// The surname first (Zhang Wei, ZHANG Wei, ZHANG WEI), or the given
	// name first (Wei Zhang, Wei ZHANG); a given name in capitals only
	// beside a surname in capitals.
	kind = realName
	nameOf := func(sur, given string, cs, cg wordCase) bool {
		if !containsWord(pinyinSurnames, sur) || !(cg == titleCase || cs == upperCase) {
			return false
		}
		switch {
		case syllables(pinyinGiven, given):
		case syllables(standInGiven, given):
			kind = standInForm
		default:
			return false
		}
		return true
	}
	surnameFirst := nameOf(la, lb, ca, cb)
	if !surnameFirst && !nameOf(lb, la, cb, ca) {
		return noName, "", nil
	}
	sur, given, cs, cg := la, lb, ca, cb
	if !surnameFirst {
		sur, given, cs, cg = lb, la, cb, ca
	}
	return kind, sur + " " + given, func(_, standIn string) string {
		s, g, _ := strings.Cut(standIn, " ")
		s, g = inCase(s, cs), inCase(g, cg)
		if surnameFirst {
			return s + " " + g
		}
		return g + " " + s
	}
}

// syllables reports whether w (lower case) is one or two syllables of
// list.
func syllables(list []string, w string) bool {
	if containsWord(list, w) {
		return true
	}
	for n := 1; n < len(w); n++ {
		if containsWord(list, w[:n]) && containsWord(list, w[n:]) {
			return true
		}
	}
	return false
}

func containsWord(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}

// inCase writes w (lower case) with a capital first, or in capitals.
func inCase(w string, c wordCase) string {
	if c == upperCase {
		return strings.ToUpper(w)
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// pinyinNameStandIn draws a name in lower case: a surname and a given
// name of one syllable or two of standInGiven.
func pinyinNameStandIn(f *fake.Faker) string {
	r := f.Rand()
	given := standInGiven[r.IntN(len(standInGiven))]
	if r.IntN(2) == 0 {
		given += standInGiven[r.IntN(len(standInGiven))]
	}
	return pinyinSurnames[r.IntN(len(pinyinSurnames))] + " " + given
}
