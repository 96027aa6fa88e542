package shellcmd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/termsafe"
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

// A word that holds what a terminal would show escaped (a tab, a CR, a
// bidi control, a byte that is no UTF-8) is the same word once printed
// through termsafe: those bytes go as printf's octal escapes, so the
// command runs as printed. -H $'X-Trace: a\tb' was printed 'X-Trace: a\tb',
// which sent a backslash and a t.
func TestQuoteSurvivesTermsafe(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	for _, s := range []string{"X-Trace: a\tb", "a\r\nb", "\x1b[2J", "it's\u202e", "\xff\xfe", "\x7f\u0085", "a\n\tb\n", "收款\t单",
		// What a CI runner would read as a workflow command, which
		// termsafe escapes: "##[" anywhere, "::name::" starting a line.
		"x ##[add-mask]y", "###[", "body\n::error::x", "a\n  ::stop-commands::t\n", "::error::at-the-quote"} {
		q := Quote(s)
		if printed := termsafe.Lines(q); printed != q {
			t.Errorf("Quote(%q) = %s, printed as %s", s, q, printed)
		}
		out, err := exec.Command(sh, "-c", "printf %s "+q).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %s back as %q (%v), want %q", q, out, err, s)
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
			if printed := termsafe.Lines(q); printed != q {
				t.Fatalf("Quote(%q) = %s, printed as %s", s, q, printed)
			}
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
		// A variable the command sets itself is no credential to set first
		// (check's replay of copies printed "set rec first").
		`rec='{"a":"$X"}'; for i in $(seq 4); do printf '%s\n' "$rec"; done | whsim replay - --url 'u' --secret "$WHSIM_REPLAY_SECRET"`: {"WHSIM_REPLAY_SECRET"},
		`rec='x'; for i in $(seq 8); do printf '%s\n' "$rec"; done | whsim replay - --concurrency 8`:                                    nil,
		`for f in a b; do curl -H "X-Key: $X_KEY" "u/$f"; done`:                                                                         {"X_KEY"},
		// Quote's printf escapes read no variable.
		`curl -H 'X: a'"$(printf '\011')"'b$NOT' -H "Authorization: $AUTHORIZATION"`: {"AUTHORIZATION"},
	} {
		if got := Vars(cmd); !slices.Equal(got, want) {
			t.Errorf("Vars(%s) = %q, want %q", cmd, got, want)
		}
	}
}

// FuzzURLWordReadBack: a URL's word, read by sh and by bash with each
// variable it names set to the value it stands for, is the URL; and no
// credential's value is in the word itself.
func FuzzURLWordReadBack(f *testing.F) {
	var shells []string
	for _, name := range []string{"sh", "bash"} {
		if p, err := exec.LookPath(name); err == nil {
			shells = append(shells, p)
		}
	}
	if len(shells) == 0 {
		f.Skip("no sh or bash on PATH")
	}
	for _, s := range []string{"s3cr3t", "it's", `a"b\c`, "$(id) `id` ${x}", "收款 'x'", "%20&"} {
		f.Add("http://h/x", "token", s, "tenant", "7")
		f.Add("http://u:"+s+"@h/", "api_key", s, "code", "{code}")
		f.Add("http://"+s+"@h/", "tenant", "7", "sig", s)
	}
	f.Fuzz(func(t *testing.T, base, k1, v1, k2, v2 string) {
		u := base + "?" + k1 + "=" + v1 + "&" + k2 + "=" + v2
		if strings.ContainsAny(u, "\x00#") || strings.ContainsAny(k1+v1+k2+v2, "&=") {
			return
		}
		env := map[string]string{}
		if start, end, ok := termsafeSpan(base); ok {
			env["URL_PASSWORD"] = base[start:end]
		} else if start, end, ok := userSpan(base); ok {
			env["URL_USER"] = base[start:end]
		}
		for _, kv := range [][2]string{{k1, v1}, {k2, v2}} {
			if secretParam(kv[0], kv[1]) {
				name := varName("", queryKey(kv[0]))
				if old, ok := env[name]; ok && old != kv[1] {
					return // two credentials under one name: the word cannot say both
				}
				env[name] = kv[1]
			}
		}
		w := URLWord(u, "")
		for _, sh := range shells {
			cmd := exec.Command(sh, "-c", "printf %s "+w)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s -c 'printf %%s %s': %v", sh, w, err)
			}
			if string(out) != u {
				t.Fatalf("%s read %s (env %q) back as %q, want %q", sh, w, env, out, u)
			}
		}
	})
}

var (
	termsafeSpan = termsafe.PasswordSpan
	userSpan     = termsafe.UserSpan
	secretParam  = termsafe.SecretParam
	queryKey     = termsafe.QueryKey
)
