package payload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/spec"
)

// numbered is a next that makes small payloads with requestIds r1, r2, ...
func numbered() func(spec.Event) (*Obj, error) {
	n := 0
	return func(spec.Event) (*Obj, error) {
		n++
		return new(Obj).add(spec.FieldRequestID, fmt.Sprintf("r%d", n)), nil
	}
}

func TestOutputWriteAll(t *testing.T) {
	t.Parallel()
	one := spec.Events()[:1]
	two := spec.Events()[2:4]
	const (
		r1 = "{\n  \"requestId\": \"r1\"\n}"
		r2 = "{\n  \"requestId\": \"r2\"\n}"
	)
	tests := []struct {
		name   string
		format string
		path   string // relative to a fresh directory; a trailing / is made first
		events []spec.Event
		count  int
		want   string   // what w gets
		files  []string // files in the directory afterwards
	}{
		{name: "one payload, indented", format: "auto", events: one, count: 1, want: r1 + "\n"},
		{name: "several payloads, NDJSON", format: "auto", events: one, count: 2, want: "{\"requestId\":\"r1\"}\n{\"requestId\":\"r2\"}\n"},
		{name: "several events are several", format: "auto", events: two, count: 1, want: "{\"requestId\":\"r1\"}\n{\"requestId\":\"r2\"}\n"},
		{name: "json makes an array of several", format: "json", events: one, count: 2, want: "[\n" + r1 + ",\n" + r2 + "\n]\n"},
		{name: "ndjson of one", format: "ndjson", events: one, count: 1, want: "{\"requestId\":\"r1\"}\n"},
		{name: "a .json file holds an array", format: "auto", path: "x.json", events: two, count: 1, want: "[\n" + r1 + ",\n" + r2 + "\n]\n"},
		{name: "a .NDJSON file of several", format: "auto", path: "x.NDJSON", events: one, count: 2, want: "{\"requestId\":\"r1\"}\n{\"requestId\":\"r2\"}\n"},
		// Indented, one payload made a .ndjson file no NDJSON reader takes.
		{name: "a .ndjson file of one is one line", format: "auto", path: "x.ndjson", events: one, count: 1, want: "{\"requestId\":\"r1\"}\n"},
		{name: "a directory, one file per payload", format: "ndjson", path: "out/", events: two, count: 1,
			want:  "out/CREATE_RECEIVABLE_DOC-r1.json\nout/ABANDON_RECEIVABLE_DOC-r2.json\n",
			files: []string{"ABANDON_RECEIVABLE_DOC-r2.json", "CREATE_RECEIVABLE_DOC-r1.json"}},
		{name: "an existing directory named .json", format: "auto", path: "d.json/", events: one, count: 1,
			want: "d.json/CREATE_PURCHASE_ORDER_INVOICE-r1.json\n", files: []string{"CREATE_PURCHASE_ORDER_INVOICE-r1.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := ""
			if tt.path != "" {
				path = filepath.Join(root, tt.path)
				if strings.HasSuffix(tt.path, "/") {
					if err := os.MkdirAll(path, 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			o := Output{Format: tt.format, Path: path}
			if (o.Dir() != "") != (tt.files != nil) || (o.File() != "") != (tt.path != "" && tt.files == nil) {
				t.Fatalf("File() = %q, Dir() = %q for %q", o.File(), o.Dir(), tt.path)
			}
			var buf bytes.Buffer
			n, err := o.WriteAll(context.Background(), &buf, tt.events, tt.count, numbered())
			if err != nil {
				t.Fatal(err)
			}
			if want := len(tt.events) * tt.count; n != want {
				t.Errorf("n = %d, want %d", n, want)
			}
			if got := strings.ReplaceAll(buf.String(), root+string(filepath.Separator), ""); got != filepath.FromSlash(tt.want) {
				t.Errorf("wrote\n%s\nwant\n%s", got, tt.want)
			}
			if tt.files == nil {
				return
			}
			ents, err := os.ReadDir(o.Dir())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, tt.files) {
				t.Errorf("files %v, want %v", names, tt.files)
			}
			b, err := os.ReadFile(filepath.Join(o.Dir(), tt.files[len(tt.files)-1]))
			if err != nil || !bytes.HasSuffix(b, []byte("}\n")) || !bytes.HasPrefix(b, []byte("{\n  ")) {
				t.Errorf("file holds %q (%v), want an indented payload", b, err)
			}
		})
	}
}

// A payload that cannot be made ends the run; what came before it is out.
func TestOutputWriteAllStopsAtError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	next := numbered()
	calls := 0
	failSecond := func(e spec.Event) (*Obj, error) {
		if calls++; calls == 2 {
			return nil, boom
		}
		return next(e)
	}
	var buf bytes.Buffer
	n, err := Output{Format: "ndjson"}.WriteAll(context.Background(), &buf, spec.Events(), 1, failSecond)
	if !errors.Is(err, boom) || n != 1 || buf.String() != "{\"requestId\":\"r1\"}\n" {
		t.Errorf("n = %d, err = %v, wrote %q", n, err, buf.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	buf.Reset()
	if n, err := (Output{Format: "auto"}).WriteAll(ctx, &buf, spec.Events(), 1, numbered()); !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("cancelled: n = %d, err = %v", n, err)
	}
}

// failingWriter fails every write, as a full disk (/dev/full) does.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// A writer that fails ends the run at once: the payloads after it were made
// for nobody (generate --count 100000000 > /dev/full made them all, for
// hours, and only then said the disk was full).
func TestOutputWriteAllStopsAtWriteError(t *testing.T) {
	t.Parallel()
	full := errors.New("no space left on device")
	const count = 100000
	for _, tt := range []struct {
		name   string
		format string
		dir    bool
	}{
		{name: "NDJSON", format: "ndjson"},
		{name: "JSON array", format: "json"},
		{name: "a directory's file names", format: "auto", dir: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := Output{Format: tt.format}
			if tt.dir {
				o.Path = t.TempDir()
			}
			next, made := numbered(), 0
			counted := func(e spec.Event) (*Obj, error) {
				made++
				return next(e)
			}
			_, err := o.WriteAll(context.Background(), failingWriter{full}, spec.Events()[:1], count, counted)
			if !errors.Is(err, full) {
				t.Errorf("err = %v, want the writer's", err)
			}
			// The buffer holds a few hundred of these small payloads
			// before its first write; not the whole run.
			if made > 1000 {
				t.Errorf("%d payloads made of %d after the writer failed, want the run to stop", made, count)
			}
		})
	}
}

// A requestId set to a path stays a file name inside the directory.
func TestOutputDirFileNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	out := filepath.Join(root, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := []any{json.RawMessage(`"../../escape"`), json.RawMessage(`7`), "a\\b/c"}
	i := 0
	next := func(spec.Event) (*Obj, error) {
		i++
		return new(Obj).add(spec.FieldRequestID, ids[i-1]), nil
	}
	var w bytes.Buffer
	if _, err := (Output{Format: "auto", Path: out}).WriteAll(context.Background(), &w, spec.Events()[:1], len(ids), next); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"CREATE_PURCHASE_ORDER_INVOICE-7.json", "CREATE_PURCHASE_ORDER_INVOICE-______escape.json", "CREATE_PURCHASE_ORDER_INVOICE-a_b_c.json"}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	if others, _ := os.ReadDir(root); len(others) != 1 {
		t.Errorf("%d entries beside the directory, want none", len(others)-1)
	}
}

// TestOutputDirOneFilePerPayload: payloads that share a requestId (one
// --set gave them all) or have none (--unset requestId) are still one file
// each, every name printed once, none of them overwritten.
func TestOutputDirOneFilePerPayload(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	ids := []any{json.RawMessage(`"abc"`), json.RawMessage(`"abc"`), "abc-2", json.RawMessage(`"abc"`), nil, nil}
	i := 0
	next := func(spec.Event) (*Obj, error) {
		i++
		doc := new(Obj).add("n", i)
		if ids[i-1] != nil {
			doc.add(spec.FieldRequestID, ids[i-1])
		}
		return doc, nil
	}
	var w bytes.Buffer
	if _, err := (Output{Format: "auto", Path: out}).WriteAll(context.Background(), &w, spec.Events()[:1], len(ids), next); err != nil {
		t.Fatal(err)
	}
	printed := strings.Fields(w.String())
	e := "CREATE_PURCHASE_ORDER_INVOICE-"
	want := []string{e + "abc.json", e + "abc-2.json", e + "abc-2-2.json", e + "abc-3.json", e + "no-requestId.json", e + "no-requestId-2.json"}
	for k, name := range printed {
		if k >= len(want) || name != filepath.Join(out, want[k]) {
			t.Fatalf("printed %q, want %q in %s", printed, want, out)
		}
		b, err := os.ReadFile(name)
		if err != nil || !bytes.Contains(b, []byte(fmt.Sprintf(`"n": %d`, k+1))) {
			t.Errorf("%s: %v: want payload %d, got %s", name, err, k+1, b)
		}
	}
	if len(printed) != len(want) {
		t.Errorf("printed %q, want %q", printed, want)
	}
}

// Check refuses -o json into a .ndjson file (indented JSON no NDJSON
// reader takes) and nothing else.
func TestOutputCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		format, path string
		refused      bool
	}{
		{"json", "x.ndjson", true},
		{"json", "x.NDJSON", true},
		{"auto", "x.ndjson", false},
		{"ndjson", "x.ndjson", false},
		{"json", "x.json", false},
		{"ndjson", "x.json", false},
		{"json", "out", false},
		{"json", "", false},
	} {
		if err := (Output{Format: tt.format, Path: tt.path}).Check(); (err != nil) != tt.refused {
			t.Errorf("-o %s --out %q: Check = %v, want refused %v", tt.format, tt.path, err, tt.refused)
		}
	}
}

// TestOutputDirLongAndForeignRequestIDs: a requestId too long for a file
// name (a --set of 300 bytes, 100 Chinese characters) still names its own
// file, cut short with a digest of the whole id so that two ids that share
// their start stay two files; characters Windows refuses in a name (or
// reads as a stream's, "urn:uuid:…") become '_'. Found by sv47: generate
// --out DIR with --set requestId=x…x (300) failed, "file name too long".
func TestOutputDirLongAndForeignRequestIDs(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	long := strings.Repeat("x", 300)
	ids := []string{long, long + "y", strings.Repeat("收", 100), `urn:uuid:a*b?c"d<e>f|g`}
	i := 0
	next := func(spec.Event) (*Obj, error) {
		i++
		b, _ := json.Marshal(ids[i-1])
		return new(Obj).add(spec.FieldRequestID, json.RawMessage(b)), nil
	}
	var w bytes.Buffer
	if _, err := (Output{Format: "auto", Path: out}).WriteAll(context.Background(), &w, spec.Events()[:1], len(ids), next); err != nil {
		t.Fatal(err)
	}
	printed := strings.Fields(w.String())
	if len(printed) != len(ids) {
		t.Fatalf("printed %q, want %d names", printed, len(ids))
	}
	for k, name := range printed {
		base := filepath.Base(name)
		if len(base) > 160 {
			t.Errorf("%s: %d bytes, want a name well under a file system's 255", base, len(base))
		}
		if strings.ContainsAny(base, `:*?"<>|`) {
			t.Errorf("%s: holds a character Windows refuses in a name", base)
		}
		if !utf8.ValidString(base) {
			t.Errorf("%q: not UTF-8 (a character cut)", base)
		}
		if b, err := os.ReadFile(name); err != nil || !bytes.Contains(b, []byte(ids[k][:3])) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if printed[0] == printed[1] || strings.HasSuffix(printed[1], "-2.json") {
		t.Errorf("two long ids that share their start: %s and %s, want names of their own", printed[0], printed[1])
	}
	if want := "CREATE_PURCHASE_ORDER_INVOICE-urn_uuid_a_b_c_d_e_f_g.json"; filepath.Base(printed[3]) != want {
		t.Errorf("%s, want %s", filepath.Base(printed[3]), want)
	}
}
