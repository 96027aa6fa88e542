package shellcmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/termsafe"
)

func TestCurl(t *testing.T) {
	big := strings.Repeat("x", 5)
	for _, tc := range []struct {
		name string
		c    Curl
		want string
	}{
		{"authorization masked, its scheme kept",
			Curl{Flags: []string{"-sS"}, URL: "http://h/hook", Header: http.Header{"Authorization": {"Bearer s3cret"}}, NoBody: true},
			`curl -sS 'http://h/hook' -H 'Authorization: Bearer ****'`},
		{"api key and cookie masked, a plain header kept",
			Curl{URL: "http://h/", Header: http.Header{"X-Api-Key": {"k3y"}, "Cookie": {"sid=abc"}, "X-Trace": {"t-1"}}, NoBody: true},
			`curl 'http://h/' -H 'Cookie: ****' -H 'X-Api-Key: ****' -H 'X-Trace: t-1'`},
		{"password in the URL masked as termsafe.URL masks it",
			Curl{URL: "https://bob:pw@h/hook", NoBody: true},
			`curl 'https://bob:xxxxx@h/hook'`},
		{"a user without a password (a token) in the URL masked",
			Curl{URL: "https://TOKEN@h/hook", NoBody: true},
			`curl 'https://****@h/hook'`},
		{"a credential in the query masked, the rest of the query kept",
			Curl{Method: "GET", URL: "http://h/probe?token=t0k&code=&kind=invoice&api_key=k", NoBody: true},
			`curl -X GET 'http://h/probe?token=****&code=&kind=invoice&api_key=****'`},
		{"the call's own signature kept, the user's credential masked, own sorted in",
			Curl{Method: "POST", URL: "http://h/hook",
				Header: http.Header{"Authorization": {"Basic dTpw"}},
				Own:    http.Header{"Webhook-Signature": {"v1,abc="}, "Content-Type": {"application/json"}},
				Body:   []byte(`{}`), MaxInline: 10},
			`curl -X POST 'http://h/hook' -H 'Authorization: Basic ****' -H 'Content-Type: application/json' -H 'Webhook-Signature: v1,abc=' --data-binary '{}'`},
		{"own replaces the user's header of its name",
			Curl{URL: "http://h/", Header: http.Header{"X-Signature": {"user's"}}, Own: http.Header{"X-Signature": {"this body's"}}, NoBody: true},
			`curl 'http://h/' -H 'X-Signature: this body'\''s'`},
		{"own the same as the user's credential: the user's, masked",
			Curl{URL: "http://h/", Header: http.Header{"X-Api-Key": {"k3y"}}, Own: http.Header{"X-Api-Key": {"k3y"}}, NoBody: true},
			`curl 'http://h/' -H 'X-Api-Key: ****'`},
		{"every value of a header, in order",
			Curl{URL: "http://h/", Header: http.Header{"X-Token": {"a", "b"}, "Accept": {"a", "b"}}, NoBody: true},
			`curl 'http://h/' -H 'Accept: a' -H 'Accept: b' -H 'X-Token: ****' -H 'X-Token: ****'`},
		{"a body with single quotes and newlines, quoted",
			Curl{URL: "http://h/", Body: []byte("{\"n\":\"it's\"}\n$(id)\n"), MaxInline: 100},
			"curl 'http://h/' --data-binary '{\"n\":\"it'\\''s\"}\n$(id)\n'"},
		{"a body starting with @ sent as it is, never read as a file's name",
			Curl{URL: "http://h/", Body: []byte("@/etc/passwd"), MaxInline: 100},
			`curl 'http://h/' --data-raw '@/etc/passwd'`},
		{"brackets and braces in the URL are no curl globs",
			Curl{Method: "POST", URL: "http://h/p?items[0]=x&b={x,y}", NoBody: true},
			`curl -X POST --globoff 'http://h/p?items[0]=x&b={x,y}'`},
		{"a HEAD without a body with --head, which reads no answer's body",
			Curl{Method: "HEAD", URL: "http://h/", NoBody: true},
			`curl --head 'http://h/'`},
		{"an empty body sent as such",
			Curl{Method: "POST", URL: "http://h/"},
			`curl -X POST 'http://h/' --data-binary ''`},
		{"a body longer than MaxInline read from its file, a note at the end",
			Curl{URL: "http://h/", Body: []byte(big), BodyFile: "BODY_FILE", MaxInline: 4, Note: "BODY_FILE: not written"},
			`curl 'http://h/' --data-binary @- <BODY_FILE  # BODY_FILE: not written`},
		{"a body that is not UTF-8 read from its file",
			Curl{URL: "http://h/", Body: []byte{0xff, 'a'}, BodyFile: "call 3.json", MaxInline: 100},
			`curl 'http://h/' --data-binary @- <'call 3.json'`},
		{"MaxInline below 0: always from the file",
			Curl{URL: "http://h/", Body: []byte(`{}`), BodyFile: "cases/x.json", MaxInline: -1},
			`curl 'http://h/' --data-binary @- <cases/x.json`},
		{"copies in a loop, a note's line break kept off the command",
			Curl{Flags: []string{"-sS", "--cacert", "/a b/ca.pem"}, URL: "http://h/", Body: []byte(`{}`), MaxInline: 9, Copies: 3, Note: "one\nrm -rf x"},
			`for i in $(seq 3); do curl -sS --cacert '/a b/ca.pem' 'http://h/' --data-binary '{}'; done  # one rm -rf x`},
		{"OneLine: a body's line breaks through printf into curl's stdin",
			Curl{URL: "http://h/", Body: []byte("{\n  \"n\": \"it's %s\\n\"\n}\n"), MaxInline: 100, OneLine: true},
			`printf '%s\n%s\n%s\n%s' '{' '  "n": "it'\''s %s\n"' '}' '' | curl 'http://h/' --data-binary @-`},
		{"OneLine, copies in a loop: printf inside it",
			Curl{URL: "http://h/", Body: []byte("a\nb"), MaxInline: 9, Copies: 2, AtOnce: true, OneLine: true},
			`for i in $(seq 2); do printf '%s\n%s' 'a' 'b' | curl 'http://h/' --data-binary @- & done; wait`},
		{"OneLine, a body of one line: as without it",
			Curl{URL: "http://h/", Body: []byte(`@{}`), MaxInline: 9, OneLine: true},
			`curl 'http://h/' --data-raw '@{}'`},
		{"copies at once in the background",
			Curl{URL: "http://h/", Body: []byte(`{}`), MaxInline: 9, Copies: 2, AtOnce: true},
			`for i in $(seq 2); do curl 'http://h/' --data-binary '{}' & done; wait`},
	} {
		c := tc.c
		if got := c.String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if got := c.String(); strings.Contains(got, "s3cret") || strings.Contains(got, "k3y") || strings.Contains(got, "t0k") || strings.Contains(got, ":pw@") {
			t.Errorf("%s: %s shows a credential", tc.name, got)
		}
	}
}

func TestWhsim(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    Whsim
		want string
	}{
		{"replay: the user's credentials masked, the URL's too",
			Whsim{Command: "replay -", URL: "http://u:pw@h/hook?sig=x", Flags: []string{"--concurrency", "8"},
				Header: http.Header{"Authorization": {"Bearer s3cret"}}, Tail: `--sign standard --secret "$WHSIM_REPLAY_SECRET"`},
			`whsim replay - --url 'http://u:xxxxx@h/hook?sig=****' --concurrency 8 -H 'Authorization: Bearer ****' --sign standard --secret "$WHSIM_REPLAY_SECRET"`},
		{"send: flags as words, a note",
			Whsim{Command: "send", URL: "http://h/hook", Flags: []string{"--file", "call-2.json", "--event", "E"},
				Header: http.Header{"X-Trace": {"t 2"}}, Note: "n"},
			`whsim send --url 'http://h/hook' --file call-2.json --event E -H 'X-Trace: t 2'  # n`},
		{"check again: a credential as its variable, the rest as it is",
			Whsim{Command: "check", URL: "http://h/hook", Vars: true,
				Header: http.Header{"X-Api-Key": {"k3y"}, "X-Tenant": {"7"}, "X-A$HOME-Token": {"t"}}},
			`whsim check --url 'http://h/hook' -H 'X-A$HOME-Token: '"$X_A_HOME_TOKEN" -H "X-Api-Key: $X_API_KEY" -H 'X-Tenant: 7'`},
	} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// argvPrinter puts on PATH a program of each given name that writes its
// arguments, each as its length in bytes, a colon and its bytes: what a
// shell made of a command line, to compare with the words it was built of.
func argvPrinter(t testing.TB, names ...string) []string {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH") // the read-back needs a POSIX shell
	}
	dir := t.TempDir()
	for _, n := range names {
		script := "#!" + sh + "\nfor a do printf '%d:%s' \"${#a}\" \"$a\"; done\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// LC_ALL=C: ${#a} counts bytes.
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "LC_ALL=C"}
}

// readArgv runs line in sh, with env, and reads back the arguments the
// printer was given.
func readArgv(t *testing.T, env []string, line string) []string {
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", line, err)
	}
	var args []string
	for len(out) > 0 {
		n, rest, ok := bytes.Cut(out, []byte(":"))
		k, err := strconv.Atoi(string(n))
		if !ok || err != nil || k > len(rest) {
			t.Fatalf("printer wrote %q", out)
		}
		args, out = append(args, string(rest[:k])), rest[k:]
	}
	return args
}

// shellReader reads command lines back through one sh that stays up for
// a fuzz target's every input, its printers shell functions: a line is
// parsed and expanded as sh -c would, without the two processes per line
// (sh and the printer) that held FuzzCurlReadBack to a few dozen inputs a
// second and its minimizing to minutes. The shell takes a run's lines
// from a file, sourced with ".", on a word from the test's pipe, its
// standard input /dev/null (a line that reads input takes nothing of the
// next); after each line it writes S (E after the last) and the line's
// status. A line that went wrong in any way ends that shell, and the next
// input gets a new one, so that no input is judged by what another left
// behind.
type shellReader struct {
	sh    string
	env   []string
	line  string // the file a run's lines are written to
	funcs string
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
}

func newShellReader(t testing.TB, names ...string) *shellReader {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH") // the read-back needs a POSIX shell
	}
	dir := t.TempDir()
	r := &shellReader{sh: sh, line: filepath.Join(dir, "line"),
		// LC_ALL=C: ${#a} counts bytes. PATH an empty directory: the
		// printers and printf are the shell's own, and a line a bug
		// let run more (the seed's rm -rf /) finds no program to run.
		env: []string{"PATH=" + t.TempDir(), "LC_ALL=C"}}
	for _, n := range names {
		r.funcs += n + "() { for a do printf '%d:%s' \"${#a}\" \"$a\"; done; }\n"
	}
	t.Cleanup(r.stop)
	return r
}

func (r *shellReader) start(t *testing.T) {
	script := r.funcs + "exec 3<&0 </dev/null\nwhile read -r _ <&3; do . " + Quote(r.line) + "; printf 'E%d\\n' \"$?\"; done\n"
	r.cmd = exec.Command(r.sh, "-c", script)
	r.cmd.Env = r.env
	in, err := r.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = r.cmd.Stdout // its complaints among the words, where a failure shows them
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.in, r.out = in, bufio.NewReader(out)
}

func (r *shellReader) stop() {
	if r.cmd != nil {
		r.in.Close() // its read of the next word ends the loop
		r.cmd.Process.Kill()
		r.cmd.Wait()
		r.cmd = nil
	}
}

// shLine is a command line to read back, with the variable name set to
// value when name is not "".
type shLine struct{ line, name, value string }

// read runs lines in the shell, in one round trip, and reads back the
// arguments the printers were given for each.
func (r *shellReader) read(t *testing.T, lines ...shLine) [][]string {
	t.Helper()
	if r.cmd == nil {
		r.start(t)
	}
	var script strings.Builder
	for i, l := range lines {
		if i > 0 {
			script.WriteString("printf 'S%d\\n' \"$?\"\n")
		}
		if l.name != "" {
			// Single quotes hold any bytes but NUL, a quote closed, escaped
			// and reopened: the value as the environment would give it.
			script.WriteString(l.name + "='" + strings.ReplaceAll(l.value, "'", `'\''`) + "'\n")
		}
		script.WriteString(l.line + "\n")
		if l.name != "" {
			script.WriteString("unset " + l.name + "\n")
		}
	}
	if err := os.WriteFile(r.line, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.in.Write([]byte("\n")); err != nil {
		r.stop()
		t.Fatalf("sh: %v", err)
	}
	var all [][]string
	for i, l := range lines {
		args, status, err := r.next()
		last := i == len(lines)-1
		if err != nil || status != map[bool]string{false: "S0", true: "E0"}[last] {
			r.stop()
			t.Fatalf("sh -c %q: %v, status %q, after %q", l.line, err, status, args)
		}
		all = append(all, args)
	}
	return all
}

// next reads the arguments one line gave the printers, up to the S (more
// lines follow) or E (the last) that ends them, and that letter and the
// line's status after it.
func (r *shellReader) next() (args []string, status string, err error) {
	for {
		b, err := r.out.Peek(1)
		if err != nil {
			return args, "", err
		}
		if b[0] == 'E' || b[0] == 'S' {
			s, err := r.out.ReadString('\n')
			return args, strings.TrimSuffix(s, "\n"), err
		}
		n, err := r.out.ReadString(':')
		if err != nil {
			return args, "", err
		}
		k, err := strconv.Atoi(strings.TrimSuffix(n, ":"))
		if err != nil {
			return args, "", fmt.Errorf("printer wrote %q", n)
		}
		a := make([]byte, k)
		if _, err := io.ReadFull(r.out, a); err != nil {
			return args, "", err
		}
		args = append(args, string(a))
	}
}

// FuzzCurlReadBack: a curl or whsim command built of any method, URL,
// header and body runs, in sh, with exactly the words it was built of,
// credentials masked by the one rule and nothing else changed.
//
// A run is one round trip to a shell (shellReader), but every byte a
// terminal would not show is printed as "$(printf '\ooo')", which the
// shell forks for: a run of random bytes takes milliseconds, and go's
// minimizer, trying an interesting input without each run of bytes of
// each value, takes its whole minute (-fuzzminimizetime) over some. Fuzz
// it with -fuzzminimizetime=5s to spend the time finding instead.
func FuzzCurlReadBack(f *testing.F) {
	for _, s := range [][5]string{
		{"POST", "http://127.0.0.1:9/hook?businessType=X", "Webhook-Signature", "v1,abc=", `{"requestId":"it's"}`},
		{"GET", "https://u:pw@h/x?token=t&a=b", "X-A$B`c`", "$(id) ${x} \\", "line\nline\n"},
		{"", "'; rm -rf / #", "", "", ""},
		{"X Y", "http://h/?q=\"\"", "K", "\t*?[]~#&;|<>", "\xff\xfe"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], "Bearer s3cret")
	}
	sh := newShellReader(f, "curl", "whsim")
	// The body a command reads from its file: there, so that the shell
	// opens it.
	bodyFile := filepath.Join(f.TempDir(), "body file.json")
	if err := os.WriteFile(bodyFile, nil, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, url, name, value, body, auth string) {
		for _, s := range []string{method, url, name, value, body, auth} {
			if strings.ContainsRune(s, 0) {
				return // no argument can hold a NUL
			}
			if len(s) > 64 {
				// Quoting is decided a character, or a run of unprinted
				// ones, at a time: longer values add nothing but time to
				// the minimizer, which tries a value without each of its
				// runs of bytes, a shell round trip each.
				return
			}
		}
		if name == "Authorization" || name == "X-Trace" {
			return // own replaces the user's header of its name: another test's
		}
		user := http.Header{"Authorization": {auth}, "X-Trace": {value}}
		own := http.Header{name: {value}}
		c := Curl{Flags: []string{"-sS", "-w", `%{http_code}\n`}, Method: method, URL: url, Header: user, Own: own,
			Body: []byte(body), BodyFile: bodyFile, MaxInline: 16}
		want := append([]string{}, c.Flags...)
		if method != "" {
			want = append(want, "-X", method)
		}
		if strings.ContainsAny(url, "[]{}") {
			want = append(want, "--globoff")
		}
		want = append(want, termsafe.URLString(url))
		hs := [][2]string{{"Authorization", termsafe.Mask("Authorization", auth)}, {"X-Trace", value}, {name, value}}
		slices.SortFunc(hs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		for _, h := range hs {
			want = append(want, "-H", h[0]+": "+h[1])
		}
		if c.Inline() && strings.HasPrefix(body, "@") {
			want = append(want, "--data-raw", body)
		} else if c.Inline() {
			want = append(want, "--data-binary", body)
		} else {
			want = append(want, "--data-binary", "@-")
		}
		lines := []shLine{{line: c.String()}}
		wants := [][]string{want}

		w := Whsim{Command: "replay -", URL: url, Flags: []string{"--event", method}, Header: user, Own: own, Note: body}
		want = []string{"replay", "-"}
		if url != "" {
			want = append(want, "--url", termsafe.URLString(url))
		}
		want = append(want, "--event", method)
		for _, h := range hs {
			want = append(want, "-H", h[0]+": "+h[1])
		}
		lines, wants = append(lines, shLine{line: w.String()}), append(wants, want)

		// A credential as its variable: the shell fills in the value.
		secret := name + "-Token"
		w = Whsim{Command: "check", Header: http.Header{secret: {"never printed"}}, Vars: true}
		if strings.Contains(w.String(), "never printed") {
			t.Fatalf("%s shows the credential", w.String())
		}
		lines = append(lines, shLine{line: w.String(), name: HeaderVar(secret), value: value})
		wants = append(wants, []string{"check", "-H", secret + ": " + value})

		for i, got := range sh.read(t, lines...) {
			if !slices.Equal(got, wants[i]) {
				t.Fatalf("sh read\n  %s\nas %q\nwant %q", lines[i].line, got, wants[i])
			}
		}
	})
}

func TestSplitAndMasked(t *testing.T) {
	user := http.Header{"Authorization": {"Bearer s3cret"}, "X-Signature": {"user's"}, "X-Trace": {"t-1"}}
	for _, tc := range []struct {
		name              string
		sent              http.Header
		given, own, shown http.Header
	}{
		{"the user's credential as given: the user's, masked",
			http.Header{"Authorization": {"Bearer s3cret"}, "Content-Type": {"application/json"}},
			http.Header{"Authorization": {"Bearer s3cret"}},
			http.Header{"Content-Type": {"application/json"}},
			http.Header{"Authorization": {"Bearer ****"}, "Content-Type": {"application/json"}}},
		{"a header the call set in place of the user's: the call's own, kept",
			http.Header{"X-Signature": {"this body's"}, "X-Trace": {"t-1"}},
			http.Header{"X-Trace": {"t-1"}},
			http.Header{"X-Signature": {"this body's"}},
			http.Header{"X-Signature": {"this body's"}, "X-Trace": {"t-1"}}},
		{"the call's own signature, no header of the user's: kept",
			http.Header{"Webhook-Signature": {"v1,abc="}},
			http.Header{},
			http.Header{"Webhook-Signature": {"v1,abc="}},
			http.Header{"Webhook-Signature": {"v1,abc="}}},
		{"the user's credential with a value added: the call's own",
			http.Header{"Authorization": {"Bearer s3cret", "Basic x"}},
			http.Header{},
			http.Header{"Authorization": {"Bearer s3cret", "Basic x"}},
			http.Header{"Authorization": {"Bearer s3cret", "Basic x"}}},
	} {
		given, own := Split(tc.sent, user)
		if !reflect.DeepEqual(given, tc.given) || !reflect.DeepEqual(own, tc.own) {
			t.Errorf("%s: Split = %v, %v; want %v, %v", tc.name, given, own, tc.given, tc.own)
		}
		if got := Masked(tc.sent, user); !reflect.DeepEqual(got, tc.shown) {
			t.Errorf("%s: Masked = %v; want %v", tc.name, got, tc.shown)
		}
		// Curl prints by the same rule: what Masked shows, as -H words.
		c := Curl{URL: "http://h/", Header: given, Own: own, NoBody: true}
		for k, vs := range tc.shown {
			for _, v := range vs {
				if w := "-H " + Quote(k+": "+v); !strings.Contains(c.String(), w) {
					t.Errorf("%s: %s lacks %s", tc.name, c.String(), w)
				}
			}
		}
	}
}

// TestURLWordRunsAsPrinted reads URLWord back through sh with each
// credential's variable set to its value as it stands in the URL: the
// shell gives the URL back byte for byte, and the printed word holds no
// credential.
func TestURLWordRunsAsPrinted(t *testing.T) {
	env := argvPrinter(t, "whsim")
	for _, tc := range []struct {
		url, word string
		vars      []string // NAME=value, each a credential the word must not show
	}{
		{"http://h/hook?businessType=X", `'http://h/hook?businessType=X'`, nil},
		{"http://h/hook?token=t0k&businessType=X", `'http://h/hook?token='"$TOKEN"'&businessType=X'`, []string{"TOKEN=t0k"}},
		{"https://bob:pw@h/x", `'https://bob:'"$URL_PASSWORD"'@h/x'`, []string{"URL_PASSWORD=pw"}},
		{"https://bob:p%27w@h:8443/x?api_key=k3y&sig=s1g&n=1", `'https://bob:'"$URL_PASSWORD"'@h:8443/x?api_key='"$API_KEY"'&sig='"$SIG"'&n=1'`,
			[]string{"URL_PASSWORD=p%27w", "API_KEY=k3y", "SIG=s1g"}},
		{"http://h/?access%5Ftoken=a%26b&x", `'http://h/?access%5Ftoken='"$ACCESS_TOKEN"'&x'`, []string{"ACCESS_TOKEN=a%26b"}},
		{"http://h/?token=$(id)'", `'http://h/?token='"$TOKEN"`, []string{"TOKEN=$(id)'"}},
		{"http://h/?token=&code=c0de", `'http://h/?token=&code='"$CODE"`, []string{"CODE=c0de"}},
		{"http://h/{kind}?code={code}&token=t0k", `'http://h/{kind}?code={code}&token='"$TOKEN"`, []string{"TOKEN=t0k"}},
		{"http://h/?token=****", `'http://h/?token='"$TOKEN"`, []string{"TOKEN=****"}},
		// A user without a password is the token (https://TOKEN@host).
		{"http://tok3n@127.0.0.1:8080/hook?businessType=X", `'http://'"$URL_USER"'@127.0.0.1:8080/hook?businessType=X'`, []string{"URL_USER=tok3n"}},
		{"https://t%27k@h/x?token=t0k", `'https://'"$URL_USER"'@h/x?token='"$TOKEN"`, []string{"URL_USER=t%27k", "TOKEN=t0k"}},
		{"http://h/?2fa_token=t0k", `'http://h/?2fa_token='"$_2FA_TOKEN"`, []string{"_2FA_TOKEN=t0k"}},
		// sh sets PWD to its working directory whatever the environment
		// says: "$PWD" sent the path as the password.
		{"http://h/?user=me&pwd=s3cr3t", `'http://h/?user=me&pwd='"$PWD_VALUE"`, []string{"PWD_VALUE=s3cr3t"}},
	} {
		got := URLWord(tc.url, "")
		if got != tc.word {
			t.Errorf("URLWord(%q) = %s, want %s", tc.url, got, tc.word)
		}
		for _, v := range tc.vars {
			if _, value, _ := strings.Cut(v, "="); strings.Contains(got, value) {
				t.Errorf("URLWord(%q) = %s shows %s", tc.url, got, value)
			}
		}
		if argv := readArgv(t, append(env, tc.vars...), "whsim "+got); !slices.Equal(argv, []string{tc.url}) {
			t.Errorf("sh read %s as %q, want %q", got, argv, tc.url)
		}
	}
	if got, want := VarHeader("Path-Token", ""), `"Path-Token: $PATH_TOKEN"`; got != want {
		t.Errorf("VarHeader(Path-Token) = %s, want %s", got, want)
	}
	if got, want := VarHeader("Home", ""), `"Home: $HOME_VALUE"`; got != want {
		t.Errorf("VarHeader(Home) = %s, want %s", got, want)
	}
	if got, want := URLWord("http://h/?pwd=pw", "PROBE_"), `'http://h/?pwd='"$PROBE_PWD"`; got != want {
		t.Errorf("URLWord(?pwd=) with a prefix = %s, want %s", got, want)
	}
	if got, want := URLWord("http://u:pw@h/?token=t", "PROBE_"), `'http://u:'"$PROBE_URL_PASSWORD"'@h/?token='"$PROBE_TOKEN"`; got != want {
		t.Errorf("URLWord with a prefix = %s, want %s", got, want)
	}
	w := Whsim{Command: "check", URL: "http://h/hook?token=t0k", Vars: true}
	if got, want := w.String(), `whsim check --url 'http://h/hook?token='"$TOKEN"`; got != want {
		t.Errorf("Whsim with Vars = %s, want %s", got, want)
	}
}

// FuzzCurlOneLineSendsTheBody: a OneLine command, pasted from a go test
// log that indented what follows a message's first line, sends the body
// byte for byte: no byte of it is a printf directive or escape, a shell
// expansion or curl's @file.
func FuzzCurlOneLineSendsTheBody(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh on PATH") // the read-back needs a POSIX shell
	}
	dir := f.TempDir()
	// A curl that writes the body it would send: its stdin for @-.
	if err := os.WriteFile(filepath.Join(dir, "curl"), []byte("#!"+sh+"\ncat\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	env := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, body := range []string{
		"this is not JSON\n", "\n", "\n\n", "a\n\nb", "{\n  \"a\": \"it's\"\n}",
		"%s %d %% %b\n\\n \\ \\0101", "-n\n-e", "@/etc/passwd\n", "$(id)\n`id` ${HOME}\n", "收款\n单",
	} {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c := Curl{URL: "http://h/", Body: []byte(body), MaxInline: 256, OneLine: true}
		if strings.ContainsRune(body, 0) || !c.Inline() {
			return // no argument holds a NUL; a body not inline is read from its file
		}
		line := c.String()
		if strings.Contains(line, "\n") {
			t.Fatalf("%q: the command spans lines: %s", body, line)
		}
		if !strings.Contains(body, "\n") {
			// One line already: the command it is without OneLine.
			c.OneLine = false
			if plain := c.String(); line != plain {
				t.Fatalf("%q: %s, want %s", body, line, plain)
			}
			return
		}
		cmd := exec.Command(sh, "-c", termsafe.Lines(line))
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil || string(out) != body {
			t.Fatalf("%q: sh -c %s sent %q (%v)", body, line, out, err)
		}
	})
}

// A curl command printed through termsafe, as check prints its
// reproductions, runs as printed with a tab in a header (-H $'X: a\tb'
// printed 'X: a\tb', a backslash and a t); a body a terminal would not
// show as it is (a tab-indented JSON) is read from its file.
func TestCurlPrintedThroughTermsafe(t *testing.T) {
	env := argvPrinter(t, "curl")
	file := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := Curl{URL: "http://h/x", Header: http.Header{"X-Trace": {"a\tb\r"}}, Body: []byte("{\n\t\"a\": 1\n}"), BodyFile: file, MaxInline: 1 << 10}
	printed := termsafe.Lines(c.String())
	want := []string{"http://h/x", "-H", "X-Trace: a\tb\r", "--data-binary", "@-"}
	if got := readArgv(t, env, printed); !slices.Equal(got, want) {
		t.Errorf("sh read\n  %s\nas %q\nwant %q", printed, got, want)
	}
}

// A command whose body is read from a file runs as printed: it sends the
// file's bytes, once and in a loop of copies, and where the file is not
// there (check's BODY_FILE placeholder, a saved case's path pasted in
// another directory) it stops, sending nothing. curl's own --data-binary
// @FILE sends an empty body then, exit 0, its warning silenced by -s: the
// receiver's answer to an empty POST read as the call's. The curl here
// does what curl does with the arguments: its stdin for @-, a file's
// bytes for @FILE, nothing for a file it cannot read, and writes the
// body it would send followed by one line.
func TestCurlBodyFileRunsAsPrinted(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	bin := t.TempDir()
	fake := "#!" + sh + `
for a do
  case $a in
  @-) cat ;;
  @*) cat "${a#@}" 2>/dev/null ;;
  esac
done
echo sent
`
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "call 3.json"), []byte(`{"n":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(c Curl) (string, error) {
		cmd := exec.Command(sh, "-c", termsafe.Lines(c.String()))
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
		out, err := cmd.Output()
		return string(out), err
	}
	big := []byte(strings.Repeat("x", 10))
	for _, tc := range []struct {
		name string
		c    Curl
		want string
	}{
		{"the file's bytes", Curl{URL: "http://h/", Body: big, BodyFile: "call 3.json", MaxInline: 4}, `{"n":1}sent` + "\n"},
		{"in a loop", Curl{URL: "http://h/", Body: big, BodyFile: "call 3.json", MaxInline: 4, Copies: 2}, strings.Repeat(`{"n":1}sent`+"\n", 2)},
	} {
		if out, err := run(tc.c); err != nil || out != tc.want {
			t.Errorf("%s: %s wrote %q (%v), want %q", tc.name, tc.c.String(), out, err, tc.want)
		}
	}
	for _, c := range []Curl{
		{URL: "http://h/", Body: big, BodyFile: "BODY_FILE", MaxInline: 4, Note: "BODY_FILE: not written"},
		{URL: "http://h/", Body: big, BodyFile: "cases/x.json", MaxInline: -1, Copies: 3},
	} {
		if out, err := run(c); err == nil || strings.Contains(out, "sent") {
			t.Errorf("%s, its file not there: wrote %q (%v), want it to stop before curl sends anything", c.String(), out, err)
		}
	}
}
