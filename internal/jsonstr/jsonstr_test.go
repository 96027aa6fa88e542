package jsonstr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
)

// stdlib is s as Go 1.26's encoding/json writes it, with HTML left as it
// is: its words on valid UTF-8, and \ufffd for each byte that is not
// (utf8.DecodeRuneInString's error of width 1). Go 1.27's (json/v2 inside)
// writes the U+FFFD itself, the same string to a reader; whsim keeps the
// escape, which shows a byte was replaced.
func stdlib(s string) []byte {
	out := []byte{'"'}
	for len(s) > 0 {
		valid := 0
		for valid < len(s) {
			r, n := utf8.DecodeRuneInString(s[valid:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			valid += n
		}
		if valid > 0 {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s[:valid])
			quoted := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			out = append(out, quoted[1:len(quoted)-1]...)
			s = s[valid:]
			continue
		}
		out = append(out, `\ufffd`...)
		s = s[1:]
	}
	return append(out, '"')
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

func TestAppendUTF8MatchesAppend(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "收款单 汇率", "quote\" back\\slash", "ctl\x00\x01\x08\x0c\x1f\n\r\t",
		"<html>&amp;", "\u2028\u2029", "😀", "\x7f\u0080\u009f", "12345678\"", "1234567\"",
		"“quoted”…—\u2027\u202a", "abcdefg\u2028", "abcdef\u2029", `{"收款单":{"收款单编号":"SKD202610080006","汇率":1.0000}}`,
		strings.Repeat("é\"\\\n", 40), strings.Repeat("x", 1000) + "\x1f"} {
		if got, want := AppendUTF8([]byte("x"), s), Append([]byte("x"), s); !bytes.Equal(got, want) {
			t.Errorf("AppendUTF8(%q) = %s, want %s", s, got, want)
		}
	}
}

// FuzzAppendUTF8 holds AppendUTF8 equal to Append on valid UTF-8, from any
// offset of a reused buffer (the word writes run past the output's end).
func FuzzAppendUTF8(f *testing.F) {
	f.Add("收款单\x00\u2028\u2029\"\\x", 3)
	f.Add(`{"requestId":"e311f80a","data":{"收款单":{"编号":"SKD2026"}}}`, 0)
	f.Fuzz(func(t *testing.T, s string, pre int) {
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "\u2028")
		}
		prefix := bytes.Repeat([]byte("p"), pre&63)
		buf := make([]byte, len(prefix), len(prefix)+pre&7)
		copy(buf, prefix)
		got := AppendUTF8(buf, s)
		want := Append(bytes.Clone(prefix), s)
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendUTF8(%q) = %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppendBody escapes a payload as a capture record holds it
// (mostly CJK, a quote every few bytes), the old way and the fast path.
func BenchmarkAppendBody(b *testing.B) {
	body, err := fixtures.Get("CREATE_RECEIVABLE_DOC", spec.Sample)
	if err != nil {
		b.Fatal(err)
	}
	s := string(body)
	for _, bm := range []struct {
		name   string
		append func([]byte, string) []byte
	}{{"Append", Append}, {"AppendUTF8", AppendUTF8}} {
		b.Run(bm.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(s))
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				buf = bm.append(buf[:0], s)
			}
		})
	}
}

// TestAttentionEveryByte: attention's lowest flag is on the first byte of
// a word that AppendUTF8 must look at (a control, '"', '\\', 0xe2),
// whatever byte stands there, at any place in the word, and whatever
// follows it; a word with none is 0.
func TestAttentionEveryByte(t *testing.T) {
	t.Parallel()
	needs := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c == 0xe2 }
	for c := 0; c < 256; c++ {
		for p := 0; p < 8; p++ {
			for _, after := range []byte{'a', 0x00, '"', 0xff, 0x80} {
				var w [8]byte
				for i := range w {
					w[i] = 'a'
					if i > p {
						w[i] = after
					}
				}
				w[p] = byte(c)
				m := attention(binary.LittleEndian.Uint64(w[:]))
				first := -1
				for i := range w {
					if needs(w[i]) {
						first = i
						break
					}
				}
				switch {
				case first < 0 && m != 0:
					t.Fatalf("attention(% x) = %#x, want 0", w, m)
				case first >= 0 && (m == 0 || bits.TrailingZeros64(m)>>3 != first):
					t.Fatalf("attention(% x) = %#x, want the lowest flag on byte %d", w, m, first)
				}
			}
		}
	}
}

func TestByteEscaped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"cap.ndjson:12":    "cap.ndjson:12",
		"收款\x1b.json":      "收款\x1b.json",
		"c\xffap.ndjson:1": `c\xffap.ndjson:1`,
		"caf\xe9\xe5\x8f":  `caf\xe9\xe5\x8f`,
		"\xe6\x94\xb6\xff": "收\\xff",
		"":                 "",
	} {
		if got := ByteEscaped(in); got != want {
			t.Errorf("ByteEscaped(%q) = %q, want %q", in, got, want)
		}
	}
}
