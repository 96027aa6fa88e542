package spec

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldNamesOnlyInSpec: the fields #9 named as typed outside the
// model appear in whsim's non-test Go only here, so that a field's name,
// and what is said of it in help and messages, has one place to change.
// Code elsewhere names them through the model or its constants
// (FieldReceiptNumber, FieldEnterpriseCode); a comment says them in words.
// bench/ is not walked: its receivers stand in for a user's, which name
// the fields as their author would, knowing no whsim package.
func TestFieldNamesOnlyInSpec(t *testing.T) {
	t.Parallel()
	names := []string{"应收金额", "收款单编号", "relatedOrderCode", "invoiceTypeCode", "enterpriseCode", "源单编号"}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("not the module's root: %v", err)
	}
	self := filepath.Join(root, "internal", "spec")
	read := 0
	walk := func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == self || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		read++
		for _, name := range names {
			if strings.Contains(string(b), name) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s names %s: name it through internal/spec", rel, name)
			}
		}
		return nil
	}
	for _, dir := range []string{"cmd", "internal", "whsimtest"} {
		if err := filepath.WalkDir(filepath.Join(root, dir), walk); err != nil {
			t.Fatal(err)
		}
	}
	// The walk read the module, not an empty or foreign tree.
	if read < 100 {
		t.Fatalf("read %d Go files under %s, want the module's", read, root)
	}
}
