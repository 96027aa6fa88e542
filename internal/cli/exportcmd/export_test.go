package exportcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// The commands export vegeta prints run the targets it wrote: with stdout
// redirected to a file, they name that file (quoted, relative to the
// working directory) rather than a targets.json that may hold another
// export's targets, for another URL.
func TestVegetaUsageNamesTheFileStdoutWent(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tt := range []struct {
		path, word string
	}{
		{"staging targets é.json", `'staging targets é.json'`},
		{filepath.Join("sub", "t.json"), "sub/t.json"},
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, tt.path)), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, tt.path))
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: f, Err: &errb}, cmdutil.Build{}, time.Now)
		code := clitest.Execute(context.Background(), a, []string{"export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--count", "2"})
		f.Close()
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.path, code, errb.String())
		}
		want := tt.word
		if runtime.GOOS != "linux" {
			want = "targets.json" // the name of stdout is read from /proc
		}
		for _, line := range []string{
			"  vegeta attack -format json -lazy -targets " + want + " -rate 100/s -duration 0 -redirects 0 -timeout 10s | tee results.bin | vegeta report\n",
			"  split -n r/2 -d " + want + " part-\n",
		} {
			if !strings.Contains(errb.String(), line) {
				t.Errorf("%s: missing %q in\n%s", tt.path, line, errb.String())
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, tt.path)); err != nil || bytes.Count(b, []byte("\n")) != 8 {
			t.Errorf("%s: %d lines, %v", tt.path, bytes.Count(b, []byte("\n")), err)
		}
	}
}

// Appended to a file of targets (>>), the commands run every target the
// file holds, each once: they counted this run's alone, so -rate 8/s for
// 1s sent 8 of the 16 and split's halves 4 of their 8.
func TestVegetaUsageCountsTheTargetsTheFileHeld(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the name of stdout is read from /proc")
	}
	t.Chdir(t.TempDir())
	for run := 1; run <= 2; run++ {
		f, err := os.OpenFile("t.json", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: f, Err: &errb}, cmdutil.Build{}, time.Now)
		code := clitest.Execute(context.Background(), a, []string{"export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--count", "2"})
		f.Close()
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, code, errb.String())
		}
		if run == 1 {
			continue
		}
		for _, want := range []string{
			"16 vegeta targets, the 8 this run wrote after the 8 t.json held, each its own requestId.",
			"  vegeta attack -format json -lazy -targets t.json -rate 100/s -duration 0 -redirects 0 -timeout 10s | tee results.bin | vegeta report\n",
			"  machine 1: vegeta attack -format json -lazy -targets part-00 -rate 50/s -duration 0 -redirects 0 -timeout 10s > m1.bin\n",
		} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("missing %q in\n%s", want, errb.String())
			}
		}
	}
}

// Written anywhere else (a buffer, a pipe), the commands keep the name
// the help's examples write to, and say to save the targets there.
func TestVegetaUsageWithoutAFile(t *testing.T) {
	code, _, stderr := clitest.Run(t, "export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--count", "2")
	if code != 0 || !strings.Contains(stderr, "-targets targets.json -rate 100/s") || !strings.Contains(stderr, "save them as targets.json (> targets.json) first") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// What export says of the requestIds is what its files hold: with
// --set requestId (a receiver's deduplication under load) or --unset
// requestId, vegeta's targets are not "each its own requestId", and k6's
// calls past the data keep the requestId, not "fresh requestIds".
func TestExportSaysHowTheRequestIdsStand(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "3"},
			"3 vegeta targets, each its own requestId.", ""},
		{[]string{"export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "3", "--set", `requestId="dup-1"`},
			"3 vegeta targets, all under one requestId.", "each its own requestId"},
		{[]string{"export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "3", "--unset", "requestId"},
			"3 vegeta targets, none with a requestId string.", "each its own requestId"},
		{[]string{"export", "k6", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "2", "--rate", "5", "--duration", "2s", "--out", filepath.Join(dir, "own"), "--set", `requestId="dup-1"`},
			"past the 2, the same calls again under the requestIds they hold (yours: --set or --unset requestId)", "fresh requestIds"},
		{[]string{"export", "k6", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "2", "--rate", "5", "--duration", "2s", "--out", filepath.Join(dir, "fresh")},
			"past the 2, the same documents again under fresh requestIds", ""},
	} {
		code, _, stderr := clitest.Run(t, tt.args...)
		if code != 0 || !strings.Contains(stderr, tt.want) || tt.not != "" && strings.Contains(stderr, tt.not) {
			t.Errorf("%v: exit %d, want %q (and no %q) in stderr:\n%s", tt.args[1:], code, tt.want, tt.not, stderr)
		}
	}
}

// A ConfigMap holds at most 1 MiB: past it, the printed
// 'kubectl create configmap --from-file=.../data.json' is refused by the
// API server. An export whose script and data are bigger says so, in its
// usage and in testrun.yaml's comment, rather than print a command that
// cannot run; a small one prints the command.
func TestExportK6ConfigMapLimit(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		count string
		fits  bool
	}{{"10", true}, {"300", false}} {
		out := filepath.Join(dir, "k6-"+tt.count)
		code, _, stderr := clitest.Run(t, "export", "k6", "--url", "http://127.0.0.1:9/hook", "--count", tt.count, "--seed", "3", "--out", out)
		if code != 0 {
			t.Fatalf("--count %s: exit %d: %s", tt.count, code, stderr)
		}
		yaml, err := os.ReadFile(filepath.Join(out, "testrun.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.Stat(filepath.Join(out, "data.json"))
		for name, text := range map[string]string{"stderr": stderr, "testrun.yaml": string(yaml)} {
			has := strings.Contains(text, "kubectl create configmap whsim ")
			says := strings.Contains(text, "over the 1 MiB a ConfigMap holds")
			if has != tt.fits || says == tt.fits {
				t.Errorf("--count %s (data.json %d bytes): %s prints the configmap command %v, says it is over %v:\n%s", tt.count, data.Size(), name, has, says, text)
			}
		}
	}
}

// A body --set made not UTF-8 (raw bytes, to see a receiver meet them)
// cannot go into k6's data file, a JSON text, byte for byte: it went in
// with U+FFFD in place of each bad byte, which k6 sent, exit 0, where
// vegeta's targets and send deliver the bytes. export k6 refuses it,
// exit 2, naming the call and the byte, and writes nothing.
func TestExportK6RefusesABodyNotText(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k6")
	set := "data.收款单.备注=\"a\xffb\""
	code, _, stderr := clitest.Run(t, "export", "k6", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "2", "--set", set, "--out", out)
	if code != 2 || !strings.Contains(stderr, "whsim export k6: --set: call 1 (CREATE_RECEIVABLE_DOC): its body is not valid UTF-8 (byte 0xff at offset ") ||
		!strings.Contains(stderr, "export it with whsim export vegeta") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s made", out)
	}
	// vegeta's targets carry the bytes.
	code, stdout, stderr := clitest.Run(t, "export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--count", "1", "--set", set)
	var target struct{ Body []byte }
	if code != 0 || json.Unmarshal([]byte(stdout), &target) != nil || !bytes.Contains(target.Body, []byte("\"a\xffb\"")) {
		t.Errorf("vegeta: exit %d, body %q, stderr:\n%s", code, target.Body, stderr)
	}
}

// The vegeta command the help prints sends the targets of its first
// example each once, as the usage printed on stderr for them does: it
// read -rate 200/s -duration 10s, 2,000 calls, whatever the targets, and
// vegeta cycles through them (the default 400 each five times).
func TestVegetaHelpCommandIsTheUsages(t *testing.T) {
	_, help, _ := clitest.Run(t, "export", "vegeta", "--help")
	attack := regexp.MustCompile(`(?m)^  vegeta attack -format json -lazy -targets targets\.json (-rate .* -timeout 10s) \|`)
	inHelp := attack.FindStringSubmatch(help)
	example := regexp.MustCompile(`(?m)^  whsim (export vegeta --url \S+ .*) > targets\.json$`).FindStringSubmatch(help)
	if inHelp == nil || example == nil {
		t.Fatalf("no vegeta command or example in the help:\n%s", help)
	}
	code, _, stderr := clitest.Run(t, strings.Fields(example[1])...)
	printed := attack.FindStringSubmatch(stderr)
	if code != 0 || printed == nil || printed[1] != inHelp[1] {
		t.Errorf("help: %q; whsim %s prints (exit %d):\n%s", inHelp[1], example[1], code, stderr)
	}
}

// A -H value or a query that is not UTF-8 (bytes HTTP allows, which send
// delivers as they are) cannot go into the engines' JSON files byte for
// byte: it went in with U+FFFD in place of each bad byte, which vegeta
// and k6 sent, exit 0. Both exports refuse it, exit 2, naming the header.
func TestExportRefusesAHeaderNotText(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--count", "1", "-H", "X-A: a\xffb"},
		{"export", "k6", "--url", "http://127.0.0.1:9/hook", "--count", "1", "-H", "X-A: a\xffb", "--out", filepath.Join(dir, "k6")},
		{"export", "vegeta", "--url", "http://127.0.0.1:9/hook?q=\xfe", "--count", "1"},
		{"export", "k6", "--url", "http://127.0.0.1:9/hook?q=\xfe", "--count", "1", "--out", filepath.Join(dir, "k6")},
	} {
		code, stdout, stderr := clitest.Run(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, `whsim export `+args[1]+`: --header "X-A": its value is not valid UTF-8`) && !strings.Contains(stderr, "whsim export "+args[1]+": --url: its query is not valid UTF-8") {
			t.Errorf("%s: exit %d, stdout %.80q, stderr:\n%s", args[1], code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "k6")); err == nil {
		t.Errorf("k6 files written")
	}
	// Any text goes as it is, in its own UTF-8.
	code, stdout, stderr := clitest.Run(t, "export", "vegeta", "--url", "http://127.0.0.1:9/hook", "--count", "1", "--event", "CREATE_RECEIVABLE_DOC", "-H", "X-Tenant: 上海")
	if code != 0 || !strings.Contains(stdout, `"X-Tenant":["上海"]`) {
		t.Errorf("exit %d, stdout %.200s, stderr:\n%s", code, stdout, stderr)
	}
}

// vegeta splits -root-certs on commas: a --cacert path with one made the
// printed commands fail every call ("open ca: no such file"). It is
// refused before any target is written.
func TestVegetaRefusesACAPathWithAComma(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile("ca,1.pem", ca, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, cmdutil.Build{}, time.Now)
	code := clitest.Execute(context.Background(), a, []string{"export", "vegeta", "--url", "https://127.0.0.1:9/hook", "--cacert", "ca,1.pem", "--count", "1"})
	const want = "--cacert ca,1.pem: vegeta reads -root-certs as a list split on commas"
	if code != 2 || !strings.Contains(errb.String(), want) || out.Len() != 0 {
		t.Errorf("exit %d, stdout %d bytes, stderr:\n%s\nwant exit 2, no targets, %q", code, out.Len(), errb.String(), want)
	}
}

// export k6 refuses a rate no machine makes and a negative duration in one
// line naming the flag (then its --help): --rate 99999999999 wrote a script (with twice as
// many VUs), and --duration -1s was answered "--rate 10 needs --duration".
func TestExportK6RefusesARateOrDurationOutOfRange(t *testing.T) {
	const k6Help = "Run 'whsim export k6 --help' for usage.\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "99999999999", "--duration", "1m"}, "whsim export k6: --rate 99999999999: want at most 1000000 calls a second\n" + k6Help},
		{[]string{"--rate", "1000001", "--duration", "1m"}, "whsim export k6: --rate 1000001: want at most 1000000 calls a second\n" + k6Help},
		{[]string{"--rate", "10", "--duration", "-1s"}, "whsim export k6: --duration -1s: want more than 0\n" + k6Help},
		{[]string{"--rate", "10"}, "whsim export k6: --rate 10 needs --duration\n" + k6Help},
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "k6")
		args := append([]string{"export", "k6", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--out", out}, tt.args...)
		code, _, stderr := clitest.Run(t, args...)
		if code != 2 || stderr != tt.want {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s made", tt.args, out)
		}
	}
	out := filepath.Join(t.TempDir(), "k6")
	if code, _, stderr := clitest.Run(t, "export", "k6", "--url", "http://127.0.0.1:9/hook", "--event", "CREATE_RECEIVABLE_DOC", "--out", out, "--rate", "1000000", "--duration", "1s"); code != 0 {
		t.Errorf("--rate 1000000: exit %d: %s", code, stderr)
	}
}
