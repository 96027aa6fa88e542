package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// tree is a small command tree: the shape the command layer describes.
var tree = Section{
	Name:  "whsim",
	Flags: []string{"no-color"},
	Subs: []Section{
		{Name: "generate", Flags: []string{"event", "seed", "set", "no-color"}},
		{Name: "send", Flags: []string{"url", "retries", "header", "no-color"}},
		{Name: "man", Flags: []string{"dir", "no-color"}, NoSection: true},
		{Name: "ready", Flags: []string{"wait", "no-color"}, NoSection: true, NoConfig: true},
		{Name: "export", Flags: []string{"no-color"}, Subs: []Section{
			{Name: "vegeta", Flags: []string{"url", "no-color"}},
			{Name: "k6", Flags: []string{"url", "out", "no-color"}},
		}},
	},
}

func write(t *testing.T, body string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "whsim.yaml")
	if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		body string
		keys []string // the keys read, sorted
		err  string   // the error, with F for the file's name
	}{
		{name: "empty", body: ""},
		{name: "only comments", body: "# nothing yet\n"},
		{name: "bare key", body: "seed: 7\n", keys: []string{"seed"}},
		{name: "section", body: "send:\n  url: http://127.0.0.1:1/\n", keys: []string{"send.url"}},
		{name: "section and bare", body: "event: [A]\ngenerate:\n  event: [B, C]\n", keys: []string{"event", "generate.event"}},
		{name: "flow section", body: "send: {url: x, retries: 3}\n", keys: []string{"send.retries", "send.url"}},
		{name: "alias", body: "url: &u http://x\nsend:\n  url: *u\n", keys: []string{"send.url", "url"}},
		{name: "bare key of a command without a section", body: "dir: out\n", keys: []string{"dir"}},
		{name: "no section for such a command", body: "man:\n  dir: out\n", err: `unknown key "man" in F, line 1`},
		{name: "flag only of a command that reads no config", body: "no-color: true\nwait: 10s\n",
			err: `unknown key "wait" in F, line 2 (ready reads no config: give --wait on its command line)`},
		{name: "that flag under a section", body: "send:\n  wait: 10s\n",
			err: `unknown key "wait" under send in F, line 2 (ready reads no config: give --wait on its command line)`},
		// a key of the subcommands, not of the command: where it goes
		{name: "key of a subcommand", body: "export:\n  url: x\n",
			err: `unknown key "url" under export in F, line 2 (a key of export vegeta and export k6: export: {vegeta: {url: ...}})`},
		{name: "key of one subcommand", body: "export:\n  out: d\n",
			err: `unknown key "out" under export in F, line 2 (a key of export k6: export: {k6: {out: ...}})`},
		{name: "subcommand section", body: "export:\n  k6:\n    out: d\n", keys: []string{"export.k6.out"}},
		{name: "unknown key", body: "urll: http://x\n", err: `unknown key "urll" in F, line 1 (did you mean "url"?)`},
		{name: "unknown key without suggestion", body: "\n\nnothing_like_it: 1\n", err: "unknown key \"nothing_like_it\" in F, line 3"},
		{name: "unknown key in a section", body: "generate:\n  sead: 3\n", err: `unknown key "sead" under generate in F, line 2 (did you mean "seed"?)`},
		{name: "key of another section", body: "generate:\n  url: x\n", err: `unknown key "url" under generate in F, line 2`},
		{name: "every unknown key", body: "urll: x\nsead: 1\n", err: "unknown key \"urll\" in F, line 1 (did you mean \"url\"?)\nunknown key \"sead\" in F, line 2 (did you mean \"seed\"?)"},
		{name: "section not a mapping", body: "send: http://x\n", err: "send in F, line 1: want keys of the send command under it, such as send: {url: ...}"},
		// a key given twice is refused, not the last one taken
		{name: "key given twice", body: "seed: 1\nseed: 2\n", err: `key "seed" in F, line 2: given already on line 1; give it once`},
		{name: "key given twice in a section", body: "generate:\n  seed: 1\n  seed: 2\n",
			err: `key "seed" under generate in F, line 3: given already on line 2; give it once`},
		{name: "section given twice", body: "generate:\n  seed: 1\nurl: x\ngenerate:\n  event: [A]\n",
			err: `key "generate" in F, line 4: given already on line 1; give it once`},
		{name: "one key bare and in a section", body: "seed: 1\ngenerate:\n  seed: 2\n", keys: []string{"generate.seed", "seed"}},
		{name: "not a mapping", body: "- seed\n", err: "config file F, line 1: want keys and values (seed: 42)"},
		{name: "not YAML", body: "seed: [1\n", err: "config file F, at its end: did not find expected ',' or ']' (in the list that starts on line 1)"},
		// the keys of a second document would set nothing
		{name: "two documents", body: "seed: 1\n---\nsend:\n  url: x\n", err: "config file F, line 3: a second YAML document (after ---): whsim reads only the first; put its keys there"},
		{name: "a broken second document", body: "seed: 1\n---\nseed: [x\n", err: "config file F: a second YAML document (after ---): whsim reads only the first; put its keys there"},
		// text after the first value that starts no document (no ---) is
		// no second document: a TOML or INI file, keys after a {...}
		{name: "TOML", body: "[generate]\nshape = \"sample\"\n", err: "config file F, line 1: want keys and values (seed: 42)"},
		{name: "a scalar, then keys", body: "\n\"seed\"\nshape: sample\n", err: "config file F, line 2: want keys and values (seed: 42)"},
		{name: "keys after a flow mapping", body: "{seed: 1}\nshape: sample\n",
			err: "config file F: more after the end of its first YAML value (a {...} mapping or a ... line ends it): write each key as key: value, on a line of its own"},
		{name: "keys after ...", body: "seed: 1\n...\nshape: sample\n",
			err: "config file F: more after the end of its first YAML value (a {...} mapping or a ... line ends it): write each key as key: value, on a line of its own"},
		{name: "one document after ---", body: "# whsim\n---\nseed: 1\n...\n", keys: []string{"seed"}},
		{name: "empty documents after it", body: "seed: 1\n---\n# nothing\n---\n", keys: []string{"seed"}},
		// YAML merge keys: the merged keys count, each checked where it
		// lands; a key the mapping gives itself wins
		{name: "merge key", body: "send: &d {url: x, retries: 3}\ngenerate:\n  seed: 1\nexport:\n  k6:\n    <<: *d\n    out: o\n",
			err: `unknown key "retries" under export.k6 in F, line 1 (merged by << on line 6)`},
		{name: "merge into a section", body: "x-defaults: &d {url: x, retries: 3}\nsend:\n  <<: *d\n  retries: 5\n", keys: []string{"send.retries", "send.url"}},
		{name: "merge a list", body: "x-a: &a {url: a}\nx-b: &b {url: b, retries: 1}\nsend: {<<: [*a, *b]}\n", keys: []string{"send.retries", "send.url"}},
		{name: "merge at the top", body: "x-d: &d {seed: 1, url: x}\n<<: *d\n", keys: []string{"seed", "url"}},
		{name: "merge a merge", body: "x-a: &a {url: a}\nx-b: &b {<<: *a, retries: 1}\nsend: {<<: *b}\n", keys: []string{"send.retries", "send.url"}},
		{name: "merge no mapping", body: "x-u: &u http://x\nsend:\n  <<: *u\n",
			err: `<< under send in F, line 3: want a mapping to merge, or a list of them (<<: *defaults, <<: [*a, *b])`},
		{name: "merge itself", body: "x-e: &e {url: x, <<: *e}\nsend: {<<: *e}\n", err: `<< in F, line 1: merges a mapping into itself`},
		{name: "two merge keys", body: "x-a: &a {url: a}\nsend:\n  <<: *a\n  <<: *a\n",
			err: `key "<<" under send in F, line 4: given already on line 3; give it once (merge several mappings with one: <<: [*a, *b])`},
		{name: "key given twice in a merged mapping", body: "x-d: &d {url: a, url: b}\nsend: {<<: *d}\n",
			err: `key "url" under x-d in F, line 1: given already on line 1; give it once`},
		{name: "a quoted << is a key", body: "'<<': {seed: 1}\n", err: `unknown key "<<" in F, line 1`},
		// an anchor's holder named as no flag: the error says how
		{name: "anchor holder", body: "defaults: &d {url: x}\nsend: {<<: *d}\n",
			err: `unknown key "defaults" in F, line 1 (to hold values for << or *d only, name it x-defaults: keys starting x- are read as no flag)`},
		{name: "keys after an empty one", body: "seed: 1\n---\n---\nsend:\n  url: x\n", err: "config file F, line 4: a second YAML document (after ---): whsim reads only the first; put its keys there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := write(t, tt.body)
			f, err := Load(name, tree)
			if tt.err != "" {
				want := strings.ReplaceAll(tt.err, "F", name)
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("error %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range f.keys {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("keys %q, want %q", keys, tt.keys)
			}
		})
	}
}

// A merged value is the value set, and the mapping's own key wins over a
// merged one, and an earlier merged mapping over a later one.
func TestLoadMergeValues(t *testing.T) {
	f, err := Load(write(t, "x-a: &a {url: a, retries: 1}\nx-b: &b {url: b, header: [h]}\nsend:\n  <<: [*a, *b]\n  retries: 5\n"), tree)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"send.url": "a", "send.retries": "5"} {
		if got := f.keys[key].Value; got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if n := f.keys["send.header"]; n == nil || len(n.Content) != 1 || n.Content[0].Value != "h" {
		t.Errorf("send.header = %+v, want [h]", n)
	}
	if got := f.Where("send.url"); got != "config file "+f.Name+", line 1" {
		t.Errorf("Where = %q: want the line the merged value is written on", got)
	}
}

// A file refused for its keys still gives the keys that are right, for a
// run that cannot start to say so in its --junit; one that is no YAML
// gives none.
func TestLoadKeysBesideAnError(t *testing.T) {
	f, err := Load(write(t, "url: x\nurll: y\nsend:\n  retries: 1\n  retries: 2\n"), tree)
	if err == nil || f == nil || !f.Has("url") || !f.Has("send.retries") || f.Has("urll") {
		t.Fatalf("Load: %v, %+v: want the error and the keys url and send.retries", err, f)
	}
	if f, err := Load(write(t, "url: x\nseed: [1\n"), tree); err == nil || f != nil {
		t.Errorf("no YAML: %v, %+v: want an error and no file", err, f)
	}
}

// Merges nested deep, each listing the one before many times, are read
// in time linear in the file: each mapping is merged once.
func TestLoadMergeNested(t *testing.T) {
	var b strings.Builder
	b.WriteString("x-0: &m0 {url: x}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "x-%d: &m%d {<<: [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*m%d, ", i-1), 10), ", "))
	}
	b.WriteString("send: {<<: *m40}\n")
	f, err := Load(write(t, b.String()), tree)
	if err != nil || f.keys["send.url"] == nil || f.keys["send.url"].Value != "x" {
		t.Fatalf("send.url: %v", err)
	}
}

// A config file is read whole, so only a bounded regular file is read.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("seed: 1\n"+strings.Repeat("#", maxSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, err string }{
		{dir, "config file " + dir + ": not a regular file"},
		{big, "config file " + big + ": larger than 1024 KiB"},
		{filepath.Join(dir, "nope.yaml"), "config file: stat " + filepath.Join(dir, "nope.yaml") + ": no such file or directory"},
	}
	for _, tt := range tests {
		if _, err := Load(tt.name, tree); err == nil || err.Error() != tt.err {
			t.Errorf("Load(%s): %v, want %q", tt.name, err, tt.err)
		}
	}
	if f, err := Load(write(t, "seed: 1\n"+strings.Repeat("#", maxSize-9)+"\n"), tree); err != nil || !f.Has("seed") {
		t.Errorf("a file of MaxSize bytes: %v", err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	user := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", user)
	t.Setenv("HOME", user)
	t.Setenv("AppData", user)
	userDir, err := os.UserConfigDir()
	if err != nil {
		t.Skip("no user config directory:", err)
	}
	userFile := filepath.Join(userDir, "whsim", "whsim.yaml")

	if got, err := Find("", "whsim", "whsim.yaml"); got != "" || err != nil {
		t.Errorf("no config file: %q, %v", got, err)
	}
	if _, err := Find("nope.yaml", "whsim", "whsim.yaml"); err == nil || !strings.HasPrefix(err.Error(), "config file: stat nope.yaml: ") {
		t.Errorf("a missing explicit file: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(userFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(userFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Find("", "whsim", "whsim.yaml"); got != userFile || err != nil {
		t.Errorf("the user's file: %q, %v, want %q", got, err, userFile)
	}
	if err := os.WriteFile("whsim.yaml", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Find("", "whsim", "whsim.yaml"); got != "whsim.yaml" || err != nil {
		t.Errorf("the working directory's file first: %q, %v", got, err)
	}
	if got, err := Find(userFile, "whsim", "whsim.yaml"); got != userFile || err != nil {
		t.Errorf("the explicit file first: %q, %v", got, err)
	}
}

// FuzzLoad: any bytes give keys or an error, never a panic, and every key
// read is a flag of the tree, bare or under its command's section.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"seed: 7\n",
		"event: [A, B]\ngenerate:\n  event: [C]\n",
		"send: {url: x, header: [\"a: b\"]}\n",
		"url: &u x\nsend:\n  url: *u\n",
		"urll: 1\ngenerate:\n  sead: 2\n",
		"send: x\n",
		"- a\n",
		"seed: [1\n",
		"a: !!binary aGk=\n",
		"<<: {seed: 1}\n",
		"x-d: &d {url: x}\nsend: {<<: [*d, *d], retries: 1}\n",
		"--- &r\nseed: 1\nsend: {<<: *r}\n",
		"x-e: &e {url: x, <<: *e}\nsend: {<<: *e}\n",
	} {
		f.Add([]byte(s))
	}
	valid := map[string]bool{}
	var add func(s Section, prefix string)
	add = func(s Section, prefix string) {
		for _, fl := range s.Flags {
			if s.NoConfig {
				continue
			}
			valid[fl] = true
			if !s.NoSection {
				valid[prefix+fl] = true
			}
		}
		for _, sub := range s.Subs {
			add(sub, prefix+sub.Name+".")
		}
	}
	add(tree, "")
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, err := parse("f.yaml", b, tree)
		if err != nil {
			if !strings.Contains(err.Error(), "f.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			// A line it names is one of the file's: yaml.v3 places the
			// end of the file a line past the last.
			for _, m := range regexp.MustCompile(`line (\d+)`).FindAllStringSubmatch(err.Error(), -1) {
				if n, _ := strconv.Atoi(m[1]); n < 1 || pastTheEnd(b, n) {
					t.Errorf("error %q names line %d, which the file does not have", err, n)
				}
			}
			return
		}
		file := &File{Name: "f.yaml", keys: keys}
		for k := range keys {
			if !valid[k] {
				t.Errorf("key %q is no flag of the tree", k)
			}
			// Any value sets a list flag or says why not, by file and line.
			fs := pflag.NewFlagSet("f", pflag.ContinueOnError)
			fs.StringArray("x", nil, "")
			if err := file.Set(fs.Lookup("x"), k); err != nil && !strings.HasPrefix(err.Error(), "config file f.yaml, line ") {
				t.Errorf("key %q: error %q does not name file and line", k, err)
			}
		}
	})
}

func TestSectionTreeUnchanged(t *testing.T) {
	before := tree.Subs[0].Flags
	if _, err := Load(write(t, "sead: 1\ngenerate:\n  urll: 2\n"), tree); err == nil {
		t.Fatal("no error for unknown keys")
	}
	if !reflect.DeepEqual(tree.Subs[0].Flags, before) || !slices.Equal(tree.Flags, []string{"no-color"}) {
		t.Errorf("Load changed the tree it was given: %+v", tree)
	}
}

// A YAML syntax error names the line an editor shows it on: yaml.v3
// numbers its parser's errors from 0 and names none on the first line or
// for bytes its reader refuses, and the message was read beside an editor.
// Where yaml.v3 names only the start of the mapping or list around what
// it could not take, that is what the message says; where it found the
// problem at the end of the file, it names no line.
func TestLoadSyntaxErrorLine(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"a flow mapping not closed", "seed: 42\n\n\ngenerate: {count: 1\n", "in the mapping that starts on line 4: did not find expected ',' or '}'"},
		{"JSON with two commas", "{\n \"seed\": 42,\n \"send\": {\"url\": \"x\",,}\n}\n", "line 3: did not find expected node content"},
		{"a list item in a mapping", "seed: 1\n- a\n", "line 2: did not find expected key"},
		{"a list item in a section", "send:\n  url: x\n  - a\n", "in the mapping that starts on line 2: did not find expected key"},
		{"a directive twice", "%YAML 1.1\n%YAML 1.1\n---\nseed: 1\n", "line 2: found duplicate %YAML directive"},
		{"an undefined tag handle on the first line", "seed: !foo!bar 1\n", "line 1: found undefined tag handle"},
		{"the first line of JSON", "{seed: 1,,}", "line 1: did not find expected node content"},
		{"a scanner error (already right)", "seed: 1\nurl: \"\\q\"\n", "line 2: found unknown escape character"},
		{"a tab", "seed: 1\n\n\n\turl: 2\n", "line 4: found a tab character that violates indentation"},
		{"a scanner error on the first line", "seed: \"\\q\"\n", "line 1: found unknown escape character"},
		{"not UTF-8", "seed: 1\nurl: \"\xff\"\n", "line 2: invalid leading UTF-8 octet"},
		{"a NUL after CRLF", "seed: 1\r\nurl: \"a\x00b\"\r\n", "line 2: control characters are not allowed"},
		{"an unknown alias", "seed: 1\nsend:\n  url: *u\n", "line 3: unknown anchor 'u' referenced"},
		// Found at the end of the file, which yaml.v3 placed a line past
		// the last: "url: [" was said to be wrong on line 2 of one.
		{"a list left open", "url: [", "at its end: did not find expected node content"},
		{"a list left open, a line break after it", "seed: 1\nurl: [\n", "at its end: did not find expected node content"},
		{"a list left open before a key", "url: [\nseed: 1\n", "at its end: did not find expected ',' or ']' (in the list that starts on line 1)"},
		{"a list left open later", "seed: 1\nurl: [a\ncount: 2\n", "in the list that starts on line 2: did not find expected ',' or ']'"},
		{"a quote left open", "url: 'abc", "line 1: found unexpected end of stream"},
		{"a quote left open before a key", "seed: 1\nurl: \"abc\ncount: 2\n", "line 2: found unexpected end of stream"},
		{"a tab to indent", "send:\n\turl: x\n", "line 2: found character that cannot start any token"},
		{"JSON without a comma", "{\n \"seed\": 1\n \"url\": \"x\"\n}\n", "line 3: did not find expected ',' or '}'"},
		{"a value after a value", "seed: 1 2: 3\n", "line 1: mapping values are not allowed in this context"},
		{"a value after a value later", "seed: 1\nurl: a: b\n", "line 2: mapping values are not allowed in this context"},
		{"a key without a colon", "seed: 1\nurl\ncount: 2\n", "line 2: could not find expected ':'"},
		{"an unknown alias after a longer one", "x-a: &uu 1\nseed: *uu\nurl: *u\n", "line 3: unknown anchor 'u' referenced"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := write(t, tc.body)
			_, err := Load(name, tree)
			want := "config file " + name + ", " + tc.want
			if err == nil {
				t.Fatalf("no error, want %q", want)
			}
			if got := err.Error(); got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}
