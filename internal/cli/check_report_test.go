package cli

import (
	"os/exec"
	"testing"

	"github.com/whsim/whsim/internal/check"
)

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `"double" $HOME \n`, "收款单 'x'\n{}"} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("shellQuote(%q) reads back as %q", s, out)
		}
	}
}

func TestCaseFile(t *testing.T) {
	tests := []struct{ check, name, want string }{
		{check.AcceptsValid, "CREATE_RECEIVABLE_DOC/nulls", "accepts-valid/CREATE_RECEIVABLE_DOC--nulls.json"},
		{check.RejectsMalformed, "type/data.收款单.汇率/string-for-number", "rejects-malformed/type--data.收款单.汇率--string-for-number.json"},
		{check.Signature, `a\b:c d`, "signature/a-b-c_d.json"},
	}
	for _, tt := range tests {
		if got := caseFile(&check.Case{Check: tt.check, Name: tt.name}); got != tt.want {
			t.Errorf("caseFile(%s, %s) = %s, want %s", tt.check, tt.name, got, tt.want)
		}
	}
}
