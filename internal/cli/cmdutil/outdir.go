package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/whsim/whsim/internal/shellcmd"
)

// FileDir says why a file output (flag, e.g. "--junit") cannot be
// written when its directory is not there (nil when it is), for the
// command to refuse it before the run (UsageErr). whsim makes the directory an output is
// (generate's and anonymize's --out dir/, export's --out, --save-cases,
// man --dir), but never the directory of a file: a mistyped directory
// would leave a report, a capture or a ready file where nobody looks,
// and one that is missing said only "open x/r.html: no such file or
// directory", for --junit after the run.
func FileDir(flag, path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no directory %s (whsim makes none for a file: mkdir -p %s first)", flag, path, dir, shellcmd.Path(dir))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s %s: directory %s: %w", flag, path, dir, err)
}
