package anonymize

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewTarget(t *testing.T) {
	dir := t.TempDir()
	sep := string(os.PathSeparator)
	two := []string{"a.ndjson", "b.ndjson"}
	tests := []struct {
		name   string
		path   string
		inputs []string
		want   target
		err    string
	}{
		{name: "stdout", path: "", inputs: []string{"a", "b", "c"}, want: target{}},
		{name: "one file", path: filepath.Join(dir, "out.ndjson"), inputs: []string{"a.ndjson"}, want: target{Path: filepath.Join(dir, "out.ndjson")}},
		{name: "existing directory", path: dir, inputs: two, want: target{Path: dir, Dir: true}},
		{name: "new directory", path: filepath.Join(dir, "new") + sep, inputs: two, want: target{Path: filepath.Join(dir, "new") + sep, Dir: true}},
		{name: "several into a file", path: filepath.Join(dir, "out.ndjson"), inputs: two,
			err: filepath.Join(dir, "out.ndjson") + ": 2 inputs need a directory (end it with /), one file each"},
		// The second would replace the first's output, and the run say
		// both were anonymized.
		{name: "two inputs of one name", path: dir, inputs: []string{filepath.Join("monday", "calls.ndjson"), "a.ndjson", filepath.Join("tuesday", "calls.ndjson")},
			err: dir + ": " + filepath.Join("monday", "calls.ndjson") + " and " + filepath.Join("tuesday", "calls.ndjson") +
				" would both be written to " + filepath.Join(dir, "calls.ndjson") + "; anonymize them into different directories"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewTarget(tt.path, tt.inputs)
			if tt.err != "" {
				if _, ok := errors.AsType[*TargetError](err); !ok || err.Error() != tt.err {
					t.Fatalf("NewTarget = %v, want a TargetError %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NewTarget = %+v, %v; want %+v", got, err, tt.want)
			}
			if got.Dir {
				if fi, err := os.Stat(got.Path); err != nil || !fi.IsDir() {
					t.Errorf("directory not made: %v", err)
				}
			}
		})
	}
}

// File writes to stdout, a file or a file of the input's name in a
// directory; a failure names the input and place and leaves no file.
func TestFile(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ndjson")
	var in []byte
	for _, b := range allFixtures(t) {
		in = append(append(in, compact(t, b)...), '\n')
	}
	if err := os.WriteFile(good, in, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.ndjson")
	badIn := append(append([]byte{}, in...), "{\"data\": x}\n"...)
	if err := os.WriteFile(bad, badIn, 0o600); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		input   string
		target  target
		written string // the file written, "" for stdout
		err     string
		stdin   []byte // stdin, in when nil
	}{
		{name: "stdin to stdout", input: "-"},
		{name: "file to stdout", input: good},
		{name: "to a file", input: good, target: target{Path: filepath.Join(dir, "a.ndjson")}, written: filepath.Join(dir, "a.ndjson")},
		{name: "into a directory", input: good, target: target{Path: outDir, Dir: true}, written: filepath.Join(outDir, "good.ndjson")},
		{name: "stdin into a directory", input: "-", target: target{Path: outDir, Dir: true},
			err: outDir + ": standard input has no file name to write in a directory; name a file"},
		{name: "missing input", input: filepath.Join(dir, "nope"), err: filepath.Join(dir, "nope") + ": no such file or directory"},
		{name: "bad input leaves no file", input: bad, target: target{Path: filepath.Join(dir, "b.ndjson")},
			err: bad + ":9:10: "},
		// Stdin is <stdin>, as validate and anonymize's own warnings name
		// it (found by an44: -:9:10:).
		{name: "bad stdin", input: "-", stdin: badIn, err: "<stdin>:9:10: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout bytes.Buffer
			stdin := in
			if tt.stdin != nil {
				stdin = tt.stdin
			}
			st, err := a.File(context.Background(), tt.input, bytes.NewReader(stdin), &stdout, tt.target, Options{})
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("File = %v, want %q", err, tt.err)
				}
				if tt.target.Path != "" && !tt.target.Dir {
					if _, err := os.Stat(tt.target.Path); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s written on failure", tt.target.Path)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("File = %v", err)
			}
			out := stdout.Bytes()
			if tt.written != "" {
				if stdout.Len() > 0 {
					t.Errorf("stdout written too: %q", stdout.String())
				}
				if out, err = os.ReadFile(tt.written); err != nil {
					t.Fatal(err)
				}
			}
			if st.Payloads != len(allFixtures(t)) || bytes.Count(out, []byte("\n")) != st.Payloads || bytes.Equal(out, in) {
				t.Errorf("%d payloads, output %d lines, changed %v", st.Payloads, bytes.Count(out, []byte("\n")), !bytes.Equal(out, in))
			}
		})
	}
}

func TestInputErrorNamesThePlace(t *testing.T) {
	cause := errors.New("a bad \x1b[31m value")
	tests := []struct {
		err  InputError
		want string
	}{
		{InputError{Line: 2, Column: 3, Err: cause}, `line 2, column 3: a bad \x1b[31m value`},
		{InputError{Line: 2, Err: cause}, `line 2: a bad \x1b[31m value`},
		// file:line:column: what, as compilers and every command that
		// reads a file back say it (ls45: a.json:2: column 3: beside
		// validate's and replay's a.json:2:3:).
		{InputError{Name: "a.json", Line: 2, Column: 3, Err: cause}, `a.json:2:3: a bad \x1b[31m value`},
		{InputError{Name: "a.json", Line: 2, Err: cause}, `a.json:2: a bad \x1b[31m value`},
		{InputError{Name: "a.json", Err: cause}, `a.json: a bad \x1b[31m value`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

// Learn fills the dictionary from a file and writes nothing: a name only
// it marks is then replaced in another input read after. A missing input
// or a directory is an error before anything is written; stdin and a FIFO
// are left for their own turn (read once, they are not read here).
func TestLearnReadsAFileBeforeAnythingIsWritten(t *testing.T) {
	dir := t.TempDir()
	later := filepath.Join(dir, "tuesday.ndjson")
	if err := os.WriteFile(later, []byte(`{"businessType":4010,"data":{"staffName":"刘磊","备注":"联系人陈静"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := newTestAnonymizer(t, testKey)
	if err := a.Learn(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	out, st := stream(t, a, []byte(`{"businessType":4010,"data":{"x":"刘磊已确认，陈静已付款"}}`), Options{Check: true})
	if bytes.Contains(out, []byte("刘磊")) || bytes.Contains(out, []byte("陈静")) || len(st.Leaks) != 0 {
		t.Errorf("after Learn: %s, leaks %+v", out, st.Leaks)
	}
	for _, name := range []string{"-", filepath.Join(dir, "missing.ndjson"), dir} {
		err := a.Learn(context.Background(), name)
		if want := name != "-"; (err != nil) != want {
			t.Errorf("Learn(%s): %v, want an error: %v", name, err, want)
		}
	}
}

// LearnStdin fills the dictionary from stdin and gives its bytes back, all
// of them, for its turn; stdin over the spool is refused as Stream refuses
// it.
func TestLearnStdinGivesStdinBack(t *testing.T) {
	in := `{"businessType":4010,"data":{"staffName":"刘磊"}}` + "\n"
	a := newTestAnonymizer(t, testKey)
	r, done, err := a.LearnStdin(context.Background(), strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	var back bytes.Buffer
	if _, err := back.ReadFrom(r); err != nil || back.String() != in || !a.r.dict.isOriginal("刘磊") {
		t.Errorf("gave back %q (%v), learned 刘磊: %v", back.String(), err, a.r.dict.isOriginal("刘磊"))
	}
	_, done, err = a.LearnStdin(context.Background(), strings.NewReader(in), Options{SpoolMax: 10})
	defer done()
	if _, ok := errors.AsType[*SpoolError](err); !ok {
		t.Errorf("over the spool: %v, want a SpoolError", err)
	}
}
