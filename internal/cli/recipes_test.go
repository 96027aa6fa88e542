package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// The CI recipes of docs/ci.md are checked where they can be without
// Docker or a CI runner: every YAML block parses, every whsim command line
// in them is accepted by whsim's own command tree and flag parser, and the
// compose file's services fit together.

// block is one fenced code block of a Markdown page.
type block struct {
	section, lang, text string
	line                int
}

var fence = regexp.MustCompile("(?m)^```([a-z]*)\n")

func codeBlocks(t *testing.T, md string) []block {
	t.Helper()
	var out []block
	section := ""
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "## ") {
			section = strings.TrimPrefix(l, "## ")
			continue
		}
		m := fence.FindStringSubmatch(l + "\n")
		if m == nil {
			continue
		}
		b := block{section: section, lang: m[1], line: i + 1}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.text += lines[i] + "\n"
		}
		if i == len(lines) {
			t.Fatalf("line %d: a code block that never ends", b.line)
		}
		out = append(out, b)
	}
	return out
}

// shellWords splits one line of shell into words and operators, as far as
// the recipes need: quotes, backslashes, and | || & && ; > < as operators.
// $VAR and ${{ expr }} stay as text: flag parsing takes any string.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '#' && !inWord:
			flush()
			return words, nil
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unbalanced ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, fmt.Errorf("unbalanced \" in %q", s)
			}
			inWord, i = true, j
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>", c) >= 0:
			// 2> and the like: the digit belongs to the operator.
			if c == '>' && inWord && (cur.String() == "1" || cur.String() == "2") {
				cur.Reset()
				inWord = false
			}
			flush()
			op := string(c)
			for i+1 < len(s) && strings.IndexByte("|&>", s[i+1]) >= 0 {
				i++
				op += string(s[i])
			}
			words = append(words, op)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

var ghExpr = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// whsimCommands finds the whsim command lines in shell text: each word
// that is the whsim program (whsim, ./bin/whsim) and the words after it up
// to an operator; a quoted word holding a whole whsim command (as
// start-server-and-test takes it) is searched in turn. A redirection's
// target is skipped.
func whsimCommands(t *testing.T, text string) [][]string {
	t.Helper()
	text = strings.ReplaceAll(text, "\\\n", " ")
	text = ghExpr.ReplaceAllString(text, "x")
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		words, err := shellWords(line)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for i := 0; i < len(words); i++ {
			w := words[i]
			if strings.Contains(w, "whsim ") && strings.Contains(w, " ") {
				out = append(out, whsimCommands(t, w)...)
				continue
			}
			if baseName(w) != "whsim" || (i > 0 && !isOperator(words[i-1]) && !strings.HasSuffix(words[i-1], "=")) {
				continue
			}
			var argv []string
			for i++; i < len(words) && !isOperator(words[i]); i++ {
				argv = append(argv, words[i])
			}
			out = append(out, argv)
		}
	}
	return out
}

// baseName is the program's name in a word such as ./bin/whsim.
func baseName(w string) string { return w[strings.LastIndexByte(w, '/')+1:] }

func isOperator(w string) bool { return strings.Trim(w, "|&;<>") == "" }

// parsed is a whsim command line as the command tree took it.
type parsed struct {
	argv []string
	cmd  *cobra.Command
}

// acceptCommand runs argv through whsim's command tree and flag parser,
// stopping short of running it.
func acceptCommand(argv []string) (parsed, error) {
	root := newRootCmd(cmdutil.NewApp(cmdutil.Streams{}, Build{}, time.Now), "")
	cmd, rest, err := root.Find(argv)
	if err != nil {
		return parsed{}, err
	}
	if cmd == root || !cmd.Runnable() {
		return parsed{}, fmt.Errorf("%q names no command", argv)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return parsed{}, err
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return parsed{}, err
	}
	return parsed{argv, cmd}, nil
}

// yamlCommands finds whsim command lines in a workflow, pipeline or
// compose file: shell in run/script/before_script, the action's args, a
// compose service's command when its image is whsim's, and exec-form
// health checks.
func yamlCommands(t *testing.T, doc any) [][]string {
	t.Helper()
	var out [][]string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, val := range v {
				switch k {
				case "run", "script", "before_script":
					switch s := val.(type) {
					case string:
						out = append(out, whsimCommands(t, s)...)
					case []any:
						for _, e := range s {
							out = append(out, whsimCommands(t, fmt.Sprint(e))...)
						}
					}
				case "with":
					if uses, _ := v["uses"].(string); strings.HasPrefix(uses, "whsim/whsim@") {
						if args, ok := val.(map[string]any)["args"].(string); ok {
							out = append(out, whsimCommands(t, "whsim "+args)...)
						}
						continue
					}
				case "command":
					if image, _ := v["image"].(string); strings.HasPrefix(image, "whsim:") {
						out = append(out, stringList(val)) // exec form after the image's entrypoint, whsim
					}
				case "test":
					if l := stringList(val); len(l) > 1 && l[0] == "CMD" && baseName(l[1]) == "whsim" {
						out = append(out, l[2:])
					}
				}
				walk(val)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	return out
}

func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

var groovyStrings = regexp.MustCompile(`(?s)'''(.*?)'''|script: '([^']*)'`)

// ciRecipes reads docs/ci.md: the whsim commands of each section, as the
// command tree accepted them, and the compose file.
func ciRecipes(t *testing.T) (perSection map[string][]parsed, compose map[string]any) {
	t.Helper()
	b, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	perSection = map[string][]parsed{}
	for _, blk := range codeBlocks(t, string(b)) {
		var cmds [][]string
		switch blk.lang {
		case "yaml":
			var doc any
			if err := yaml.Unmarshal([]byte(blk.text), &doc); err != nil {
				t.Errorf("docs/ci.md:%d: the YAML does not parse: %v", blk.line, err)
				continue
			}
			cmds = yamlCommands(t, doc)
			if strings.HasPrefix(blk.text, "# compose.yaml") {
				compose, _ = doc.(map[string]any)
			}
		case "groovy":
			for _, m := range groovyStrings.FindAllStringSubmatch(blk.text, -1) {
				cmds = append(cmds, whsimCommands(t, m[1]+m[2])...)
			}
		case "sh":
			cmds = whsimCommands(t, blk.text)
		case "markdown": // what a job summary shows: output, no commands
		default:
			t.Errorf("docs/ci.md:%d: a %q block: the test knows yaml, groovy, sh and markdown", blk.line, blk.lang)
		}
		for _, argv := range cmds {
			p, err := acceptCommand(argv)
			if err != nil {
				t.Errorf("docs/ci.md:%d (%s): whsim %s: %v", blk.line, blk.section, strings.Join(argv, " "), err)
				continue
			}
			perSection[blk.section] = append(perSection[blk.section], p)
		}
	}
	return perSection, compose
}

func TestCIRecipes(t *testing.T) {
	perSection, compose := ciRecipes(t)

	// Each recipe runs the commands it is there for: a recipe whose
	// commands the extraction missed would pass unchecked.
	for section, want := range map[string][]string{
		"GitHub Actions: the receiver as a service container": {"check"},
		"GitLab CI": {"check"},
		"Jenkins":   {"check"},
		"docker-compose: listen in front of the receiver, check once it is ready": {"listen", "ready", "check"},
		"Local scripts: start, wait until ready, test":                            {"listen", "ready", "check"},
	} {
		var got []string
		for _, p := range perSection[section] {
			got = append(got, p.cmd.Name())
		}
		for _, name := range want {
			if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+name+" ") {
				t.Errorf("section %q: no whsim %s found (found %q)", section, name, got)
			}
		}
	}
	for _, p := range perSection["GitHub Actions: the receiver as a service container"] {
		if p.cmd.Name() == "check" && (flag(p, "junit") == "" || flag(p, "report") == "") {
			t.Errorf("the GitHub recipe's check writes no JUnit or report: %q", p.argv)
		}
	}

	checkCompose(t, compose, perSection["docker-compose: listen in front of the receiver, check once it is ready"])
	b, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("\nHOST_USER=\"$(id -u):$(id -g)\" docker compose up --exit-code-from ")) {
		t.Error("compose: the recipe's docker compose up does not set HOST_USER to the user's uid:gid")
	}
	// Jenkins keeps the workspace between builds: a run that ends where
	// whsim writes nothing (a flag it cannot parse, SIGKILL) must not
	// leave the last build's JUnit and report to be archived as this one's.
	rm, run := bytes.Index(b, []byte("sh 'rm -f whsim-check.xml whsim-check.html'")), bytes.Index(b, []byte("script: './bin/whsim check "))
	if rm < 0 || run < 0 || rm > run {
		t.Error("Jenkins: the recipe does not remove the last build's whsim-check.xml and whsim-check.html before the check")
	}
}

func flag(p parsed, name string) string {
	f := p.cmd.Flags().Lookup(name)
	if f == nil {
		return ""
	}
	return f.Value.String()
}

// checkCompose checks that the compose recipe's services fit together:
// listen forwards to the receiver service, its health check reads the
// ready file it writes, and the check waits for that health and calls
// listen by its service name and port.
func checkCompose(t *testing.T, compose map[string]any, cmds []parsed) {
	t.Helper()
	services, _ := compose["services"].(map[string]any)
	if services == nil {
		t.Fatal("docs/ci.md: no compose.yaml block with services")
	}
	var listen, ready, check *parsed
	for i, p := range cmds {
		switch p.cmd.Name() {
		case "listen":
			listen = &cmds[i]
		case "ready":
			ready = &cmds[i]
		case "check":
			check = &cmds[i]
		}
		if listen != nil && ready != nil && check != nil {
			break
		}
	}
	if listen == nil || ready == nil || check == nil {
		t.Fatalf("compose: want listen, ready and check, got %d commands", len(cmds))
	}
	service := func(name string) map[string]any {
		s, _ := services[name].(map[string]any)
		if s == nil {
			t.Fatalf("compose: no service %s", name)
		}
		return s
	}
	fwd, err := url.Parse(flag(*listen, "forward-to"))
	if err != nil || fwd.Hostname() == "" {
		t.Fatalf("compose: listen --forward-to %q", flag(*listen, "forward-to"))
	}
	receiverName := fwd.Hostname()
	service(receiverName)
	if got, want := ready.argv[1], flag(*listen, "ready-file"); got != want {
		t.Errorf("compose: the health check reads %s, listen writes %s", got, want)
	}
	if !strings.HasPrefix(flag(*listen, "ready-file"), "/tmp/") {
		t.Errorf("compose: the ready file %s is not under /tmp, the image's one writable directory", flag(*listen, "ready-file"))
	}
	u, err := url.Parse(flag(*check, "url"))
	if err != nil {
		t.Fatal(err)
	}
	listenName := u.Hostname()
	ls := service(listenName)
	if hc, _ := ls["healthcheck"].(map[string]any); hc == nil || !strings.Contains(fmt.Sprint(hc["test"]), "ready") {
		t.Errorf("compose: service %s, which check calls, has no whsim ready health check", listenName)
	}
	if _, port, _ := strings.Cut(flag(*listen, "addr"), ":"); port != u.Port() {
		t.Errorf("compose: check calls port %s, listen listens on %s", u.Port(), flag(*listen, "addr"))
	}
	var checkName string
	for name, s := range services {
		if c := stringList(s.(map[string]any)["command"]); len(c) > 0 && c[0] == "check" {
			checkName = name
		}
	}
	// What listen and check write to the mounted host directory must be
	// the host user's to read and to upload as artifacts: the report and
	// the capture are created 0600 (they may hold secrets), so written as
	// the image's uid 65532 they were unreadable to whoever ran compose.
	// Both run as HOST_USER, which the recipe's commands set to theirs.
	for _, name := range []string{listenName, checkName} {
		if u, _ := service(name)["user"].(string); u != "${HOST_USER:-65532:65532}" {
			t.Errorf("compose: service %s runs as %q, not as ${HOST_USER:-65532:65532}: the 0600 report and capture it writes to the host's directory would not be the host user's", name, u)
		}
	}
	// Each starts once the one it calls is healthy: check after listen,
	// listen after the receiver.
	for _, d := range [][2]string{{checkName, listenName}, {listenName, receiverName}} {
		dep, _ := service(d[0])["depends_on"].(map[string]any)
		cond, _ := dep[d[1]].(map[string]any)
		if cond["condition"] != "service_healthy" {
			t.Errorf("compose: %s does not wait for %s to be healthy: depends_on %v", d[0], d[1], service(d[0])["depends_on"])
		}
	}
}

// TestRecipeCheckerRefuses: the checks above can fail.
func TestRecipeCheckerRefuses(t *testing.T) {
	for _, line := range []string{
		"whsim check --url http://x --bogus",
		"whsim chekc --url http://x",
		"whsim ready",
		"whsim ready f --wait soon",
		"whsim listen --addr 127.0.0.1:8080 stray",
		"whsim",
	} {
		cmds := whsimCommands(t, line)
		if len(cmds) != 1 {
			t.Fatalf("%q: found %d commands", line, len(cmds))
		}
		if _, err := acceptCommand(cmds[0]); err == nil {
			t.Errorf("%q accepted", line)
		}
	}
	got := whsimCommands(t, `whsim listen --ready-file u 2> log & x=1; ./bin/whsim ready u --wait 10s || exit 2 # whsim nope
npx s-s-a-t 'whsim listen --addr 127.0.0.1:8080' tcp:1 'npm test'
echo whsim is not a command here`)
	want := "[[listen --ready-file u] [ready u --wait 10s] [listen --addr 127.0.0.1:8080]]"
	if fmt.Sprint(got) != want {
		t.Errorf("whsimCommands = %v, want %s", got, want)
	}
}

// proxyBeforeReceiver is what a published port of a container whose
// program does not listen yet looks like from the host (Docker's
// docker-proxy, which takes localhost's connections): it accepts a
// connection and closes it without a byte. The first `early` connections
// are treated so; then the receiver answers (404: it is up, / is no route).
type proxyBeforeReceiver struct {
	net.Listener
	early  int
	closed atomic.Int32
}

func (l *proxyBeforeReceiver) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || int(l.closed.Load()) >= l.early {
			return c, err
		}
		l.closed.Add(1)
		c.Close()
	}
}

// TestRecipesWaitOutAStartingReceiver runs each recipe's "wait for the
// receiver" curl line against a port that, as a service container's port
// does while the receiver starts, accepts and closes: the wait must go on
// until the receiver answers. --retry-connrefused alone gave up at once
// (curl exit 52, "empty reply"), failing the job before the check ran.
func TestRecipesWaitOutAStartingReceiver(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is missing: the recipes' wait needs it")
	}
	b, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	waits := regexp.MustCompile(`(?m)curl --retry .*http://(localhost|receiver):3000/$`).FindAllString(string(b), -1)
	if len(waits) != 2 {
		t.Fatalf("docs/ci.md: %d curl waits for the receiver, want the GitHub and GitLab recipes' 2: %q", len(waits), waits)
	}
	for _, wait := range waits {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		proxy := &proxyBeforeReceiver{Listener: ln, early: 1}
		srv := &http.Server{Handler: http.NotFoundHandler()}
		go func() { _ = srv.Serve(proxy) }()
		line := regexp.MustCompile(`http://\w+:3000/$`).ReplaceAllString(wait, "http://"+ln.Addr().String()+"/")
		out, err := exec.Command("bash", "-c", line).CombinedOutput()
		srv.Close()
		if err != nil || proxy.closed.Load() != 1 {
			t.Errorf("%s: %v (connections closed unanswered: %d)\n%s", wait, err, proxy.closed.Load(), out)
		}
	}
}

// TestReadmeInstallRuns runs the README's install from a release archive
// as written, against an archive laid out as goreleaser lays it out and
// served on 127.0.0.1, with sudo left out and /usr/local moved into a
// temporary root that is as Debian 12 ships it (no share/man/man1). The
// commands are pasted where a user is, often their project: the
// archive's README.md, LICENSE and docs/ must not land over theirs.
func TestReadmeInstallRuns(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "tar", "sha256sum", "install"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing: the README's install needs it", tool)
		}
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(b), "**From a release archive**")
	_, block, _ := strings.Cut(after, "```sh\n")
	block, _, ok := strings.Cut(block, "```")
	if !ok || !strings.Contains(block, "VERSION=0.1.0 OS=linux ARCH=amd64") {
		t.Fatalf("README.md: no install block after **From a release archive**, or not for 0.1.0 linux/amd64:\n%s", block)
	}

	var archive bytes.Buffer
	zw := gzip.NewWriter(&archive)
	tw := tar.NewWriter(zw)
	for _, f := range []struct{ name, body string }{
		{"whsim", "the whsim binary"}, {"README.md", "# whsim\n"}, {"LICENSE", "MIT\n"},
		{"docs/ci.md", "# whsim in CI\n"}, {"manpages/whsim.1", ".TH WHSIM 1\n"}, {"manpages/whsim-check.1", ".TH WHSIM-CHECK 1\n"},
	} {
		mode := int64(0o644)
		if f.name == "whsim" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive.Bytes())
	assets := map[string][]byte{
		"/v0.1.0/whsim_0.1.0_linux_amd64.tar.gz": archive.Bytes(),
		"/v0.1.0/whsim_0.1.0_checksums.txt":      fmt.Appendf(nil, "%x  whsim_0.1.0_linux_amd64.tar.gz\n%x  whsim_0.1.0_darwin_arm64.tar.gz\n", sum, sha256.Sum256(nil)),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := assets[r.URL.Path]; ok {
			_, _ = w.Write(a)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()

	root := t.TempDir()
	for _, d := range []string{"usr/local/bin", "usr/local/share/man"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	project := t.TempDir()
	for _, f := range []string{"README.md", "LICENSE", "docs/ci.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(project, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, f), []byte("the project's own "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.NewReplacer(
		"https://github.com/whsim/whsim/releases/download", srv.URL,
		"sudo ", "",
		"/usr/local/", root+"/usr/local/",
	).Replace(block)
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's install failed: %v\n%s\n(the script)\n%s", err, out, script)
	}
	for _, f := range []string{"usr/local/bin/whsim", "usr/local/share/man/man1/whsim.1", "usr/local/share/man/man1/whsim-check.1"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	for _, f := range []string{"README.md", "LICENSE", "docs/ci.md"} {
		if b, _ := os.ReadFile(filepath.Join(project, f)); string(b) != "the project's own "+f {
			t.Errorf("the install wrote over the project's %s: now %q", f, b)
		}
	}
}

const composeSection = "docker-compose: listen in front of the receiver, check once it is ready"

// TestComposeRecipeRuns runs the compose recipe's three whsim commands as
// written, with what Docker would provide put in by hand: the services'
// names become 127.0.0.1 addresses (listen on a free port rather than
// every interface), the container's /tmp and the /out volume become
// directories, and the health check is polled by ready --wait as Docker
// polls it. The receiver answers 200 to every call, so check finds that it
// accepts malformed calls: exit 1, with the JUnit and the report in /out,
// and every call in listen's capture.
func TestComposeRecipeRuns(t *testing.T) {
	perSection, _ := ciRecipes(t)
	t.Chdir(t.TempDir()) // no whsim.yaml from the developer's tree
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var listen, ready, check []string
	for _, p := range perSection[composeSection] {
		switch p.cmd.Name() {
		case "listen":
			listen = p.argv
		case "ready":
			ready = p.argv
		case "check":
			check = p.argv
		}
	}
	if listen == nil || ready == nil || check == nil {
		t.Fatalf("compose recipe: listen %q, ready %q, check %q", listen, ready, check)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer receiver.Close()

	root := t.TempDir()
	volume := func(p string) string {
		for _, dir := range []string{"/tmp/", "/out/"} {
			if strings.HasPrefix(p, dir) {
				return filepath.Join(root, dir, p[len(dir):])
			}
		}
		return p
	}
	for _, d := range []string{"tmp", "out"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// rewrite puts the test's addresses and directories into argv.
	rewrite := func(argv []string, hosts map[string]string) []string {
		out := make([]string, len(argv))
		for i, a := range argv {
			out[i] = volume(a)
			if i > 0 && argv[i-1] == "--addr" {
				out[i] = "127.0.0.1:0"
			}
			if u, err := url.Parse(a); err == nil && hosts[u.Host] != "" {
				u.Host = hosts[u.Host]
				out[i] = u.String()
			}
		}
		return out
	}
	fwd, _ := url.Parse(argAfter(listen, "--forward-to"))
	listenArgs := rewrite(listen, map[string]string{fwd.Host: strings.TrimPrefix(receiver.URL, "http://")})

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var listenErr bytes.Buffer
	listened := make(chan int, 1)
	go func() {
		a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, Err: &listenErr}, Build{}, time.Now)
		listened <- Execute(ctx, a, listenArgs)
	}()

	// Docker's health check, polled until healthy.
	code, u, stderr := runCLI(t, append(rewrite(ready, nil), "--wait", "30s")...)
	if code != 0 {
		stop()
		<-listened
		t.Fatalf("the health check: exit %d: %s\nlisten: %s", code, stderr, listenErr.Bytes())
	}
	listenURL, _ := url.Parse(strings.TrimSpace(u))
	target, _ := url.Parse(argAfter(check, "--url"))
	code, _, stderr = runCLI(t, rewrite(check, map[string]string{target.Host: listenURL.Host})...)
	if code != cmdutil.ExitFailed || !strings.Contains(stderr, "rejects-malformed") {
		t.Errorf("check through listen: exit %d, want 1 (the receiver accepts malformed calls):\n%s", code, stderr)
	}
	for _, flag := range []string{"--junit", "--report"} {
		if fi, err := os.Stat(volume(argAfter(check, flag))); err != nil || fi.Size() == 0 {
			t.Errorf("check %s %s: %v", flag, argAfter(check, flag), err)
		}
	}

	stop()
	if code := <-listened; code != 0 {
		t.Errorf("listen: exit %d: %s", code, listenErr.Bytes())
	}
	capture, err := os.ReadFile(volume(argAfter(listen, "--capture")))
	if n := strings.Count(string(capture), "\n"); err != nil || n < 10 {
		t.Errorf("listen's capture: %d records, %v; want every call check made", n, err)
	}
	if code, _, _ := runCLI(t, rewrite(ready, nil)...); code != cmdutil.ExitFailed {
		t.Errorf("the health check after listen stopped: exit %d, want 1", code)
	}
}

// argAfter is the value of flag in argv.
func argAfter(argv []string, flag string) string {
	for i := range argv[:len(argv)-1] {
		if argv[i] == flag {
			return argv[i+1]
		}
	}
	return ""
}
