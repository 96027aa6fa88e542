//go:build !linux

package pipewatch

import (
	"context"
	"os"
)

// ReaderGone returns nil (never ready): without Linux's POLLERR on a
// pipe's write end, a reader's going away shows only at the next write.
func ReaderGone(ctx context.Context, f *os.File) <-chan struct{} { return nil }
