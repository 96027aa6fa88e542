package cmdutil

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A path flag takes any value that names something and refuses one that
// names nothing, saying what it wants: blanks were a file named " ".
func TestPathFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		val     string
		dir     bool
		wantErr string
	}{
		{"out.xml", false, ""},
		{" out.xml", false, ""}, // a name with a space in it is still a name
		{"-", false, ""},
		{"cases/", true, ""},
		{" ", false, "want a file name, not blanks"},
		{"\t\n ", false, "want a file name, not blanks"},
		{" ", true, "want a directory name, not blanks"},
		{"", false, "want a file name (leave the flag out for none)"},
	}
	for _, tt := range tests {
		var p string
		cmd := &cobra.Command{Use: "x"}
		PathFlag(cmd, &p, "junit", "", tt.dir, "")
		err := cmd.Flags().Set("junit", tt.val)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.val, err)
		case tt.wantErr == "" && p != tt.val:
			t.Errorf("%q: set %q", tt.val, p)
		case tt.wantErr != "" && (err == nil || !strings.HasSuffix(err.Error(), ": "+tt.wantErr)):
			t.Errorf("%q: err %v, want %q", tt.val, err, tt.wantErr)
		case tt.wantErr != "" && p != "":
			t.Errorf("%q: refused, yet set %q", tt.val, p)
		}
		if got, _ := cmd.Flags().GetString("junit"); got != p {
			t.Errorf("%q: GetString %q, want %q", tt.val, got, p)
		}
	}
}
