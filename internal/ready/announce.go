package ready

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/whsim/whsim/internal/atomicfile"
)

// Announce writes u to the ready file at path (listen --ready-file,
// inspect --ready-file) and takes it away again as soon as ctx is done,
// which is when the server stops taking connections: so that Check, and a
// script waiting for the file, never take a stopping or stopped server for
// a ready one. The file is written atomically: a script polling for it
// never reads half of it.
//
// withdraw removes the file at once, for a run that ends before ctx is
// done, and waits for a removal under way; the server's command calls it
// before it returns. Neither removes a file that no longer holds u:
// another server wrote it since, and it is that one's to remove.
//
// A path that is there and is not a regular file (a link, /dev/stdout, a
// FIFO) is refused: the file is removed when the server stops, which would
// take the link or the device away, and reading it back to see whether it
// still holds u would read from a terminal or a pipe.
func Announce(ctx context.Context, path, u string) (withdraw func(), err error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: a ready file is written, then removed when the server stops", path)
	}
	err = atomicfile.Write(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, u+"\n")
		return err
	})
	if err != nil {
		return nil, err
	}
	remove := sync.OnceFunc(func() {
		if b, err := os.ReadFile(path); err == nil && string(b) == u+"\n" {
			_ = os.Remove(path)
		}
	})
	stopWatching := context.AfterFunc(ctx, remove)
	return func() { stopWatching(); remove() }, nil
}
