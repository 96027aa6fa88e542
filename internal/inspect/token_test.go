package inspect

import (
	"strings"
	"testing"
)

func TestCheckToken(t *testing.T) {
	for _, tt := range []struct {
		tok  string
		want string // "" accepted, else a piece of the error
	}{
		{"0123456789abcdef", ""},
		{"3f9c2a7b1e5d4c8a9b0f6e2d1c3a5b7e", ""}, // openssl rand -hex 16
		{newToken(), ""},
		{"a-b.c_d~e1f2g3h4", ""},
		{"", "0 characters"},
		{"short", "5 characters; a token needs at least 16"},
		{"0123456789abcde", "15 characters"},
		{"aaaaaaaaaaaaaaaaaaaa", "only 1 different"},
		{"abababababababababab", "only 2 different"},
		{"0123456789abcdef&x=1", "character 17 is not"},
		{"0123456789 abcdef", "character 11 is not"},
		{"0123456789abcdéf", "character 15 is not"},
		{"éé0123456789abcdef", "character 1 is not"},
	} {
		err := CheckToken(tt.tok)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q refused: %v", tt.tok, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: error %v, want it to say %q", tt.tok, err, tt.want)
		case err != nil && len(tt.tok) > 3 && strings.Contains(err.Error(), tt.tok):
			t.Errorf("%q: the error repeats the token: %v", tt.tok, err)
		}
	}
}
