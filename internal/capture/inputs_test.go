package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	capt := write("capture.ndjson", `{"capture":1,"method":"POST"}`+"\n")
	plain := write("payloads.ndjson", `{"requestId":"r"}`+"\n")
	missing := filepath.Join(dir, "missing.ndjson")
	ins, closeAll, err := OpenInputs(context.Background(), []string{capt, capt, "-"}, strings.NewReader(""))
	if err != nil || len(ins) != 3 || ins[1].Name != capt || ins[2].Name != "<stdin>" {
		t.Fatalf("two captures and stdin: %v, %+v", err, ins)
	}
	closeAll()
	for _, in := range ins[:2] {
		if _, err := in.R.(*os.File).Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s left open", in.Name)
		}
	}

	var pe *PayloadsError
	if _, _, err := OpenInputs(context.Background(), []string{capt, plain}, nil); !errors.As(err, &pe) || pe.Name != plain {
		t.Errorf("payloads: %v, want a *PayloadsError naming %s", err, plain)
	}
	_, _, err = OpenInputs(context.Background(), []string{capt, missing}, nil)
	if !errors.Is(err, os.ErrNotExist) || errors.As(err, &pe) || err.Error() != missing+": no such file or directory" {
		t.Errorf("missing file: %v, want it named once", err)
	}
}

// TestOpenInputsStopsWhereTheFileEnded: records appended after a capture
// was opened, as a listen that a replay feeds appends them, are not read,
// so replaying into the listen that writes the file ends.
func TestOpenInputsStopsWhereTheFileEnded(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "capture.ndjson")
	rec := `{"capture":1,"method":"POST","body":"{}","bodyEncoding":"utf8"}` + "\n"
	if err := os.WriteFile(p, []byte(rec+rec), 0o600); err != nil {
		t.Fatal(err)
	}
	ins, closeAll, err := OpenInputs(context.Background(), []string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(rec + rec + rec); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rd := ins[0].Reader()
	n := 0
	for {
		_, err := rd.Next()
		if err != nil {
			break
		}
		n++
	}
	if n != 2 {
		t.Errorf("read %d records, want the 2 the file held when opened", n)
	}
}
