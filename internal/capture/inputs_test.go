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
