package pipewatch

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// ReaderGone returns a channel closed once every reader of f, the write
// end of a pipe, has closed it; nil (never ready) when f is no pipe. The
// watch ends with ctx. f must stay open while ctx is live: its descriptor
// is polled outside f's own bookkeeping.
func ReaderGone(ctx context.Context, f *os.File) <-chan struct{} {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return nil
	}
	fd, ok := descriptor(f)
	if !ok {
		return nil
	}
	// The end of ctx wakes the poll through a pipe of its own: a poll
	// with no timeout costs nothing while it waits, where one woken now
	// and then to look at ctx would cost a wake-up each time.
	wakeR, wakeW, err := os.Pipe()
	if err != nil {
		return nil
	}
	wake, ok := descriptor(wakeR)
	if !ok {
		wakeR.Close()
		wakeW.Close()
		return nil
	}
	gone := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { wakeW.Close() })
	go func() {
		defer wakeR.Close()
		defer func() {
			if stop() {
				wakeW.Close()
			}
		}()
		for {
			// No events asked of f: poll reports POLLERR on a pipe's
			// write end once it has no reader, and POLLHUP, whatever is
			// asked.
			fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(wake), Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, -1); errors.Is(err, unix.EINTR) {
				continue
			} else if err != nil {
				return
			}
			if fds[1].Revents != 0 {
				return // ctx ended
			}
			if fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				close(gone)
				return
			}
			if fds[0].Revents&unix.POLLNVAL != 0 {
				return
			}
		}
	}()
	return gone
}

// descriptor is f's file descriptor, taken without f.Fd, which would put
// f in blocking mode.
func descriptor(f *os.File) (int, bool) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	fd := -1
	if err := raw.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return 0, false
	}
	return fd, fd >= 0
}
