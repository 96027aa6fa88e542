package check

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A report whose reading fails part way (a disk error, a file cut off
// under it) is placed at the line it failed on, as a bad line is: the
// command then says it file:line:, as it says every other.
func TestReadFailedPlacesAReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("input/output error")
	first := `{"check":"accepts-valid","case":"x","verdict":"pass"}` + "\n"
	_, err := ReadFailed(io.MultiReader(strings.NewReader(first), iotest.ErrReader(broken)))
	var le *ReportLineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, broken) {
		t.Fatalf("err = %v, want a *ReportLineError at line 2 wrapping %v", err, broken)
	}
}
