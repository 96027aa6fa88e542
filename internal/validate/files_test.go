package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every input is opened before any is checked; the first unreadable one is
// named, without the open's own wording of the path.
func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	tests := []struct {
		name  string
		files []string
		err   string
	}{
		{name: "none is stdin"},
		{name: "file and stdin", files: []string{good, "-"}},
		{name: "missing", files: []string{good, missing}, err: missing + ": no such file or directory"},
		{name: "directory", files: []string{dir, good}, err: dir + ": is a directory"},
		// Read twice, stdin held nothing the second time: an
		// empty-input error for a payload that was checked.
		{name: "stdin twice", files: []string{"-", good, "-"}, err: "- (stdin) is named twice: stdin can be read only once"},
		{name: "stdin twice in a row", files: []string{"-", "-"}, err: "- (stdin) is named twice: stdin can be read only once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := OpenFiles(context.Background(), tt.files, strings.NewReader(""))
			if tt.err == "" {
				if err != nil {
					t.Fatalf("OpenFiles = %v", err)
				}
				fs.Close()
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("OpenFiles = %v, want %q", err, tt.err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OpenFiles(ctx, []string{missing}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: OpenFiles = %v, want context.Canceled", err)
	}
}

// A run names each case's input (stdin as <stdin>), counts every payload
// and tells before it reads stdin.
func TestCheckFiles(t *testing.T) {
	v, err := New(Options{Shape: ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	pretty, err := os.ReadFile("testdata/receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, pretty); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	file := filepath.Join(t.TempDir(), "two.ndjson")
	if err := os.WriteFile(file, append(append(good, '\n'), "{\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(file)
	empty, blank, none := filepath.Join(dir, "empty.json"), filepath.Join(dir, "blank.ndjson"), filepath.Join(dir, "none.json")
	for name, b := range map[string]string{empty: "", blank: "\n \n", none: "[]"} {
		if err := os.WriteFile(name, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		files   []string
		stdin   string
		want    []string // each case's file
		failed  int
		told    bool
		wantErr string
	}{
		{name: "stdin", stdin: string(good), want: []string{"<stdin>"}, told: true},
		// An input that holds no payload beside others that do is a
		// mistake (a capture nobody wrote, a failed redirect), not a
		// pass: a failed case naming it, after the others. With no
		// payload anywhere there is no case: the command says so.
		{name: "empty among others", files: []string{empty, file, blank, none}, want: []string{file, file, empty, blank, none}, failed: 4},
		{name: "empty stdin after a file", files: []string{file, "-"}, want: []string{file, file, "<stdin>"}, failed: 2, told: true},
		{name: "only empty inputs", files: []string{empty, blank, none}},
		{name: "file then stdin", files: []string{file, "-"}, stdin: "{", want: []string{file, file, "<stdin>"}, failed: 2, told: true},
		{name: "file", files: []string{file}, want: []string{file, file}, failed: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := OpenFiles(context.Background(), tt.files, strings.NewReader(tt.stdin))
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			var got []string
			told := false
			sum, err := v.CheckFiles(context.Background(), fs, "", func() { told = true }, func(c Case) error {
				got = append(got, c.File)
				return nil
			})
			if err != nil {
				t.Fatalf("CheckFiles = %v", err)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") || sum.Payloads != len(tt.want) || sum.Failed != tt.failed || told != tt.told {
				t.Errorf("cases %q, summary %+v, told %v; want %q, %d failed, told %v", got, sum, told, tt.want, tt.failed, tt.told)
			}
		})
	}
}

// An input that cannot be read is an error naming it; nil beforeStdin is
// allowed.
func TestCheckFilesNamesAnUnreadableInput(t *testing.T) {
	v, err := New(Options{Shape: ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := OpenFiles(context.Background(), nil, iotestErrReader{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.CheckFiles(context.Background(), fs, "", nil, func(Case) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>: ") || !errors.Is(err, errBroken) {
		t.Fatalf("CheckFiles = %v, want <stdin>: ... wrapping errBroken", err)
	}
}

var errBroken = errors.New("broken pipe")

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errBroken }

func TestUnknownRuleError(t *testing.T) {
	tests := []struct{ id, want string }{
		{"line-taks", `unknown rule "line-taks" (did you mean "line-tax"?)`},
		{"zzzzzzzzzzzz", `unknown rule "zzzzzzzzzzzz" (valid: ` + strings.Join(ruleIDs(), ", ") + ")"},
	}
	for _, tt := range tests {
		_, err := New(Options{Shape: ShapeAuto, Ignore: []string{tt.id}})
		if err == nil || err.Error() != tt.want {
			t.Errorf("Ignore %q: %v, want %q", tt.id, err, tt.want)
		}
	}
}

func TestRuleHelp(t *testing.T) {
	lines := strings.Split(RuleHelp(), "\n")
	if len(lines) != len(Rules()) {
		t.Fatalf("%d lines for %d rules", len(lines), len(Rules()))
	}
	for i, r := range Rules() {
		if !strings.HasPrefix(lines[i], "  "+r.ID+" ") || !strings.HasSuffix(lines[i], " "+r.Summary) {
			t.Errorf("line %d %q does not describe %s", i, lines[i], r.ID)
		}
	}
}

func TestParseEvent(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "", want: ""},
		{in: "create_receivable_doc", want: "CREATE_RECEIVABLE_DOC"},
		{in: "CREATE_RECIEVABLE_DOC", err: `unknown event "CREATE_RECIEVABLE_DOC" (did you mean "CREATE_RECEIVABLE_DOC"?)`},
		{in: "all", err: `unknown event "all" (valid: CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC, ABANDON_RECEIVABLE_DOC)`},
	}
	for _, tt := range tests {
		got, err := ParseEvent(tt.in)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("ParseEvent(%q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// Stdin redirected from a regular file (whsim validate - < big.ndjson) is
// read at offsets, as a named file is: checkInput gets its *os.File, from
// the file's current offset on, and reports what the stream of the same
// bytes reports; the offset is left at the file's end, as reading it whole
// leaves it. A pipe stays a stream (its reads cannot be repeated). Fails on
// stdin wrapped whatever it is (one reader, no ranges).
func TestCheckFilesStdinFromAFile(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Strict: true})
	rec := splitInputs(t)[0].in // records and failing records, 12 lines
	// Some 1.3 MB: ranges of 512 KiB on two workers or more. A first line
	// read before whsim starts (a shell's { read -r x; whsim validate -; }).
	const first = "{\"skipped\": true}\n"
	body := strings.Repeat(rec, 60)
	path := filepath.Join(t.TempDir(), "big.ndjson")
	if err := os.WriteFile(path, []byte(first+body), 0o600); err != nil {
		t.Fatal(err)
	}
	each := func(stdin io.Reader) (string, Summary) {
		t.Helper()
		fs, err := OpenFiles(context.Background(), []string{"-"}, stdin)
		if err != nil {
			t.Fatal(err)
		}
		defer fs.Close()
		var out strings.Builder
		sum, err := v.CheckFiles(context.Background(), fs, "", nil, func(c Case) error {
			fmt.Fprintf(&out, "%s %+v\n", c.File, *c.result)
			return nil
		})
		fmt.Fprintf(&out, "error: %v\n", err)
		return out.String(), sum
	}
	want, wantSum := each(strings.NewReader(body))

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(int64(len(first)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	fs, err := OpenFiles(context.Background(), []string{"-"}, f)
	if err != nil {
		t.Fatal(err)
	}
	r, done, err := fs.open(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r != io.Reader(f) {
		t.Fatalf("stdin from a file is read as %T, not as its *os.File", r)
	}
	if ra, n := offsets(r, int64(len(first+body)), true); ra == nil || n != int64(len(body)) {
		t.Fatalf("stdin from a file at offset %d: %v bytes at offsets, want %d", len(first), n, len(body))
	}
	done()
	if _, err := f.Seek(int64(len(first)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, sum := each(f)
	if got != want || sum != wantSum {
		t.Fatalf("stdin from a file (%+v):\n%s\nthe stream (%+v):\n%s", sum, got, wantSum, want)
	}
	if at, _ := f.Seek(0, io.SeekCurrent); at != int64(len(first+body)) {
		t.Errorf("stdin's offset after the run %d, want its end %d", at, len(first+body))
	}

	pipe := func() *os.File {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pr.Close() })
		go func() {
			_, _ = io.WriteString(pw, body)
			pw.Close()
		}()
		return pr
	}
	pr := pipe()
	pfs, err := OpenFiles(context.Background(), []string{"-"}, pr)
	if err != nil {
		t.Fatal(err)
	}
	if r, _, err := pfs.open(context.Background(), 0); err != nil || r == io.Reader(pr) {
		t.Fatalf("stdin from a pipe is read as %T (%v), not as a stream", r, err)
	}
	pfs.Close()
	got, sum = each(pipe())
	if got != want || sum != wantSum {
		t.Fatalf("stdin from a pipe (%+v):\n%s\nthe stream (%+v):\n%s", sum, got, wantSum, want)
	}
}
