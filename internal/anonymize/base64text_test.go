package anonymize

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

// A value in base64 that decodes to text is searched decoded: a name, a
// tax id or a mobile in it is replaced and written back in the same
// alphabet and padding, and --check finds an original planted so. Before,
// each of these came out as it went in while --check said nothing was
// left. What decodes to no text (a hash, random bytes) and a word that
// only looks like base64 are kept byte for byte.
func TestBase64TextIsSearchedDecoded(t *testing.T) {
	t.Parallel()
	const name, tax, mobile = "王建国", "91370211MA00HEFDX5", "13812345678"
	doc := `{"staffName":"` + name + `","mobile":"` + mobile + `"}`
	tests := []struct {
		name  string
		enc   *base64.Encoding
		plain string
	}{
		{"a name in text", base64.StdEncoding, "客户" + name + " 电话" + mobile},
		{"a tax id", base64.StdEncoding, tax},
		{"a name alone, unpadded URL alphabet", base64.RawURLEncoding, "联系人" + name},
		{"a name, padded URL alphabet", base64.URLEncoding, "经办人：" + name + "?"},
		{"a document", base64.StdEncoding, doc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.enc.EncodeToString([]byte(tt.plain))
			a := newTestAnonymizer(t, testKey)
			out, data := anonymizedData(t, a, `"staffName":"`+name+`","taxCode":"`+tax+`","ext":"`+v+`"`)
			got, err := tt.enc.DecodeString(data["ext"])
			if err != nil {
				t.Fatalf("ext %q is no longer in its encoding: %v", data["ext"], err)
			}
			for _, orig := range []string{name, tax, mobile} {
				if strings.Contains(string(got), orig) {
					t.Errorf("%s survives in base64: %q", orig, got)
				}
			}
			if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
				t.Errorf("--check finds %v in %s", leaks, out)
			}
			// --check on the input, as on an output an original was
			// planted back into: the base64 one is found.
			plantedFound(t, a, `"ext":"`+v+`"`)
		})
	}
	kept := []string{
		base64.StdEncoding.EncodeToString([]byte{0x9f, 0x00, 0xfe, 0x13, 0x80, 0x81, 0x82, 0x83, 0x84}),
		"CGFP2026101446303887",
		"PURCHASE_RECEIPT",
		"c1f051a2-24c1-4ac0-8fe5-4b9e3c221fc5",
		base64.StdEncoding.EncodeToString([]byte("hello, nobody here")),
	}
	notesKept(t, kept...)
}

func TestBase64Form(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want *base64.Encoding
	}{
		{"546L5bu65Zu9", base64.StdEncoding},
		{"5a6i5oi3546L5bu6", base64.StdEncoding},
		{"6IGU57O75Lq6546L5bu65Zu9", base64.StdEncoding},
		{"6IGU57O75Lq6546L5bu65Zu", base64.RawStdEncoding},
		{"a+b/c+d/e", nil}, // a length base64 never has
		{"6IGU57O7-Lq6_w", base64.RawURLEncoding},
		{"6IGU57O7-Lq6_w==", base64.URLEncoding},
		{"6IGU+7O7-Lq6", nil}, // both alphabets
		{"6IGU57O7=Lq6", nil}, // "=" inside
		{"6IGU57O75Lq6===", nil},
		{"6IGU57O75L=", nil}, // padded, not a multiple of four
		{"546L5bu", nil},     // too short
		{"王建国王建国王建国", nil},
	}
	for _, tt := range tests {
		got, ok := base64Form(tt.s)
		if ok != (tt.want != nil) || got != tt.want {
			t.Errorf("base64Form(%q) = %v, %v; want %v", tt.s, got, ok, tt.want)
		}
	}
}
