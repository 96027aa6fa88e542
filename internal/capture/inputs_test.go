package capture

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	var opened []*os.File
	open := func(_ context.Context, name string) (io.ReadCloser, string, error) {
		f, err := os.Open(name)
		if err == nil {
			opened = append(opened, f)
		}
		return f, "shown " + filepath.Base(name), err
	}

	ins, closeAll, err := OpenInputs(context.Background(), []string{capt, capt}, open)
	if err != nil || len(ins) != 2 || ins[1].Name != "shown capture.ndjson" {
		t.Fatalf("two captures: %v, %+v", err, ins)
	}
	closeAll()
	for _, f := range opened {
		if _, err := f.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s left open", f.Name())
		}
	}

	var pe *PayloadsError
	if _, _, err := OpenInputs(context.Background(), []string{capt, plain}, open); !errors.As(err, &pe) || pe.Name != plain {
		t.Errorf("payloads: %v, want a *PayloadsError naming %s", err, plain)
	}
	if _, _, err := OpenInputs(context.Background(), []string{capt, missing}, open); !errors.Is(err, os.ErrNotExist) || errors.As(err, &pe) {
		t.Errorf("missing file: %v", err)
	}
	for _, f := range opened {
		if _, err := f.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s left open after an error", f.Name())
		}
	}
}
