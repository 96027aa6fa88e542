package shellcmd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--insecure", "--insecure"},
		{"http://127.0.0.1:9000/hook?a=1", "'http://127.0.0.1:9000/hook?a=1'"},
		{"/tmp/ca.pem", "/tmp/ca.pem"},
		{"", "''"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"收款单", "'收款单'"},
		{"out/k6/script.js", "out/k6/script.js"},
		{"a b", "'a b'"},
		{"$(touch x)", "'$(touch x)'"},
		{"a\nb", "'a\nb'"},
		{"`id`;x&y|z", "'`id`;x&y|z'"},
	} {
		if got := Word(tc.in); got != tc.want {
			t.Errorf("Word(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := Words([]string{"--cacert", "/a b/ca.pem"}); got != " --cacert '/a b/ca.pem'" {
		t.Errorf("Words = %q", got)
	}
}

// A path printed as a command's argument names its file, never an option.
func TestPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cases/x.ndjson", "cases/x.ndjson"},
		{"-cases/x.ndjson", "./-cases/x.ndjson"},
		{"-x it's.ndjson", `'./-x it'\''s.ndjson'`},
		{"/abs/-x", "/abs/-x"},
		{"a/-b", "a/-b"},
	} {
		if got := Path(tc.in); got != tc.want {
			t.Errorf("Path(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzQuoteReadBack: what sh reads back of a quoted word is the word,
// whatever it holds (a NUL cannot be in an argument at all).
func FuzzQuoteReadBack(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh on PATH")
	}
	for _, s := range []string{"", "plain", "it's", `a"b\c`, "$(id) `id` ${x}", "\n\t*?[]~#&;|<>", "收款单 'x'", "\x7f\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			return
		}
		for _, q := range []string{Quote(s), Word(s)} {
			out, err := exec.Command(sh, "-c", "printf %s "+q).Output()
			if err != nil {
				t.Fatalf("sh -c 'printf %%s %s': %v", q, err)
			}
			if string(out) != s {
				t.Fatalf("sh read %q back as %q", q, out)
			}
		}
	})
}

func TestVars(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string][]string{
		`curl -sS 'http://h/x?token='"$TOKEN"'&a=1' -H "Authorization: $AUTHORIZATION" --data-binary '{"a":"$HOME"}'`: {"TOKEN", "AUTHORIZATION"},
		`printf '%s\n' '{"h":"it'\''s $X"}' | whsim replay - --sign standard --secret "$WHSIM_REPLAY_SECRET"`:         {"WHSIM_REPLAY_SECRET"},
		`for i in $(seq 8); do curl -sS -H "X-Api-Key: $X_API_KEY" 'u' & done; wait`:                                  {"X_API_KEY"},
		`WHSIM_CODE='A' sh -c 'sqlite3 app.db "select 1 where n = '\''$WHSIM_CODE'\''"'`:                              nil,
		`echo \$NOT "${BRACED}" $1 "$TOKEN" "$TOKEN"`:                                                                 {"BRACED", "TOKEN"},
		`curl 'http://h/x'`: nil,
		// A hint in a comment: its prose's apostrophe quotes nothing, and
		// its command reads what it reads (WHSIM_CHECK_SECRET was missed).
		`curl -H "X-Key: $X_KEY" 'u'  # one of the run's calls; load is judged over all of them: whsim check --url 'u?t='"$T" --secret "$WHSIM_CHECK_SECRET" --checks load`: {"X_KEY", "T", "WHSIM_CHECK_SECRET"},
		`echo "a # $IN_QUOTES" 'b#$NOT' x#$Y`: {"IN_QUOTES", "Y"},
	} {
		if got := Vars(cmd); !slices.Equal(got, want) {
			t.Errorf("Vars(%s) = %q, want %q", cmd, got, want)
		}
	}
}
