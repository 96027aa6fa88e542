package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

func stdlib(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "收款单 汇率", "quote\" back\\slash", "ctl\x00\x01\x08\x0c\x1f\n\r\t",
		"<html>&amp;", "\u2028\u2029", "bad\xffutf8\xe6\x94", "😀", "\x7f\u0080\u009f"} {
		if got, want := Append(nil, s), stdlib(s); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("收款单\x00\xff\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append([]byte("x"), s), append([]byte("x"), stdlib(s)...); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}
