package anonymize

import (
	"bytes"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// Chinese ERPs still send bodies in GBK (or GB2312, or GB18030, which
// holds both): there the names the run replaced are other bytes than in
// UTF-8, and a byte-wise search misses them. Such a body is decoded,
// anonymized as any other and encoded again; the bytes around what was
// replaced come back as they were (GB18030 decodes and encodes them one
// to one).

// gbCharsets are the charsets a Content-Type names GB18030 or a subset by.
var gbCharsets = map[string]bool{"gbk": true, "gb2312": true, "gb18030": true, "cp936": true, "x-gbk": true, "windows-936": true, "euc-cn": true}

// gbText returns b decoded to UTF-8 when it is Chinese text in GB18030 or a
// subset: not UTF-8, and either contentType names such a charset, or it
// decodes with no invalid sequence and no control character and holds Han
// characters.
func gbText(b []byte, contentType string) ([]byte, bool) {
	if utf8.Valid(b) {
		return nil, false
	}
	declared := false
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		declared = gbCharsets[strings.ToLower(params["charset"])]
	}
	u, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b)
	if err != nil {
		return nil, false
	}
	if declared {
		return u, true
	}
	han := false
	for _, r := range string(u) {
		switch {
		case r == utf8.RuneError:
			return nil, false
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f:
			return nil, false
		case unicode.Is(unicode.Han, r):
			han = true
		}
	}
	return u, han
}

// gbEncode encodes anonymized text back to GB18030; orig, the bytes it was
// decoded from, is returned when nothing changed.
func gbEncode(text, decoded, orig []byte) []byte {
	if bytes.Equal(text, decoded) {
		return orig
	}
	b, err := simplifiedchinese.GB18030.NewEncoder().Bytes(text)
	if err != nil {
		// Not reached: GB18030 encodes every character, and the text is
		// UTF-8 (decoded, with UTF-8 stand-ins). Kept as UTF-8 rather than
		// lost.
		return text
	}
	return b
}
