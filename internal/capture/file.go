package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
)

// Sync says how hard a File pushes records to the disk. Every mode writes a
// record to the file (the kernel's page cache) before Write returns, so a
// record survives the process being killed; the modes differ in what
// survives the machine losing power.
type Sync string

const (
	// SyncAlways fsyncs before Write returns. Concurrent writers share one
	// fsync (group commit), so it costs one disk flush per batch, not per
	// record.
	SyncAlways Sync = "always"
	// SyncInterval fsyncs once per SyncPeriod when something was written.
	SyncInterval Sync = "interval"
	// SyncNever leaves flushing to the operating system.
	SyncNever Sync = "never"
)

// SyncModes lists the valid Sync values.
func SyncModes() []string {
	return []string{string(SyncAlways), string(SyncInterval), string(SyncNever)}
}

// ParseSync checks a --fsync value.
func ParseSync(s string) (Sync, error) {
	switch Sync(s) {
	case SyncAlways, SyncInterval, SyncNever:
		return Sync(s), nil
	}
	return "", fmt.Errorf("unknown fsync mode %q (valid: always, interval, never)", s)
}

// syncPeriod is how often SyncInterval flushes.
const syncPeriod = time.Second

// File appends records to a capture file, safe for concurrent use.
//
// Concurrent writers share one write(2) (group commit): each encodes its
// record on its own, queues the line, and the first writer to find no write
// running writes every queued line at once while the others wait. Each
// Write still returns only once its own line is in the file, and says
// where the line starts.
type File struct {
	f    *os.File
	sync Sync
	path string
	id   os.FileInfo // the open file's identity, to compare with path's

	checked time.Time // last stillThere; only the writer in write(2) uses it

	mu      sync.Mutex // guards everything down to err
	cond    sync.Cond  // on mu: a batch was written or failed
	pending []byte     // queued lines, not yet written
	spare   []byte     // the last batch's buffer, for reuse
	end     int64      // where the next line queued will start in the file
	queued  uint64     // records queued
	written uint64     // records written
	writing bool       // a writer is in write(2) outside mu
	err     error      // first write error; the file is unusable after it

	syncMu sync.Mutex // one fsync at a time
	synced uint64     // records known to be on disk

	stop chan struct{}
	done chan struct{}
}

// maxKeep bounds the buffers kept between calls: one huge body's buffer is
// not kept forever.
const maxKeep = 1 << 20

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// OpenFile opens path for appending, creating it with mode 0600: captures
// hold whatever the sender put in its headers, secrets included. When the
// file ends in a torn line (a crash while writing), the next record starts
// on a fresh line and torn reports it; readers skip the torn line. (A whole
// record that only lacks its newline gets one too, and is no torn line.)
func OpenFile(path string, mode Sync) (file *File, torn bool, err error) {
	return openFile(path, mode, syncDir)
}

// openFile is OpenFile with the directory fsync given: tests record it.
func openFile(path string, mode Sync, syncDir func(dir string) error) (file *File, torn bool, err error) {
	if _, err := ParseSync(string(mode)); err != nil {
		return nil, false, err
	}
	fi, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	if statErr == nil && !fi.Mode().IsRegular() {
		// A FIFO, a device or /dev/stdout cannot be locked, read back for
		// a torn line or fsynced, and a FIFO nobody reads would hold every
		// call's answer once its buffer filled.
		return nil, false, fmt.Errorf("%s: not a regular file (%s): a capture is a file listen appends to, locks and fsyncs (listen --output json streams the calls to stdout)", path, ctxio.FileKind(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := takesRecords(f); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("%s: listen cannot append to it and fsync it (%w): a capture is a file on a disk (a file of /proc or /sys is none)", path, err)
	}
	if created && mode != SyncNever {
		// A new file's name is in its directory, and an fsync of the file
		// does not put the directory on disk: without this, a crash after
		// records were fsynced (acknowledged, with --fsync always) could
		// lose the file, records and all.
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, false, fmt.Errorf("%s: syncing its directory: %w", path, err)
		}
	}
	// Locked before anything is written, the torn line's newline included.
	if err := lockWriter(f); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	unended, torn, err := endsUnended(f)
	if err == nil && unended {
		_, err = f.Write([]byte{'\n'})
	}
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	id, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	// Batches are written in the order their lines were queued, and this
	// File is the file's only writer (a second one would make the offsets
	// Write returns wrong), so a line lands at the size at open plus the
	// bytes queued before it.
	c := &File{f: f, sync: mode, path: path, id: id, end: id.Size(), stop: make(chan struct{}), done: make(chan struct{})}
	c.cond.L = &c.mu
	if mode == SyncInterval {
		go c.flusher()
	} else {
		close(c.done)
	}
	return c, torn, nil
}

// takesRecords says why f, just opened, would take no record, before
// anything is written to it: a file of /proc says it is a regular file of
// 0 bytes and opens for writing, but a record written to it fails, is cut
// short or sets what the file stands for (/proc/self/comm renames the
// process, /proc/sys/kernel/hostname the machine), and its fsync fails.
// Found only at the first call, every call was answered 500, unrecorded,
// and listen said so at its stop. An fsync asks what every --fsync mode
// asks at Close, and changes nothing; a write of nothing, which would
// have found /proc/version's EIO, is no probe: it renames the process of
// a /proc/self/comm.
func takesRecords(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", bareCause(err))
	}
	return nil
}

// bareCause is err without the path an *fs.PathError adds, which the
// message around it already names.
func bareCause(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// endsUnended reports whether f is non-empty and its last byte is not a
// newline, and whether that last line is torn: one that does not read as a
// record, as readers find it. A whole record that only lacks its newline
// (a capture an editor saved, dropping the final newline) is no torn line,
// and readers read it.
func endsUnended(f *os.File) (unended, torn bool, err error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
		return false, false, err
	}
	if last[0] == '\n' {
		return false, false, nil
	}
	start, err := lastLineStart(f, st.Size())
	if err != nil {
		return true, false, err
	}
	_, err = NewReader(io.NewSectionReader(f, start, st.Size()-start)).Next()
	_, isTorn := errors.AsType[*TornError](err)
	return true, isTorn, nil
}

// lastLineStart is the offset just after the last newline before size, 0
// when there is none. It reads backwards a block at a time: no line is
// held in memory.
func lastLineStart(f *os.File, size int64) (int64, error) {
	var buf [64 << 10]byte
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// Write appends r as one line and returns the byte offset the line starts
// at: a Reader started there reads r back. It returns once the line is in
// the file (and on disk with SyncAlways), so a caller may acknowledge the
// call after.
func (c *File) Write(r *Record) (offset int64, err error) {
	bp := linePool.Get().(*[]byte)
	line, err := Append((*bp)[:0], r)
	if err != nil {
		linePool.Put(bp)
		return 0, err
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		linePool.Put(bp)
		return 0, c.err
	}
	c.pending = append(c.pending, line...)
	c.queued++
	seq := c.queued
	offset = c.end
	c.end += int64(len(line))
	if cap(line) <= maxKeep {
		*bp = line[:0]
		linePool.Put(bp)
	}
	for c.written < seq {
		if c.err != nil {
			// The batch holding this record failed.
			c.mu.Unlock()
			return 0, c.err
		}
		if c.writing {
			c.cond.Wait()
			continue
		}
		c.flushLocked()
	}
	c.mu.Unlock()
	if c.sync != SyncAlways {
		return offset, nil
	}
	if err := c.syncTo(seq); err != nil {
		return 0, err
	}
	return offset, nil
}

// flushLocked writes every queued line in one write(2), with mu held on
// entry and exit but not during the write, and wakes the writers waiting.
func (c *File) flushLocked() {
	batch, upTo := c.pending, c.queued
	start := c.end - int64(len(batch)) // where the batch's first line goes
	c.pending = c.spare[:0]
	c.spare = nil
	c.writing = true
	c.mu.Unlock()
	var err error
	if now := time.Now(); now.Sub(c.checked) >= CheckEvery {
		// Before anyone is acknowledged: is the file still the one at its
		// path? Asked before the write, so that a file moved away holds
		// no record of a call that was refused (it would say the call
		// was answered as planned). A stat per batch cost listen a sixth
		// of its CPU per call under load; once per CheckEvery costs
		// nothing measurable.
		err = c.stillThere()
		c.checked = now
	}
	if err == nil {
		if _, err = c.f.Write(batch); err != nil {
			// A short write (a disk that filled) leaves the lines before
			// it whole in the file, and one torn: every record of the
			// batch fails and its call is refused, so none may stay to
			// say it was answered as planned. Cut back to where the batch
			// began (when that fails too, readers skip the torn line).
			_ = c.f.Truncate(start)
		}
	}
	c.mu.Lock()
	c.writing = false
	if err != nil {
		// Later records would follow a failed batch (or be glued to its
		// torn line), so the file takes no more: every record queued
		// fails. So does a file that is gone from its path.
		c.err = err
	} else {
		c.written = upTo
	}
	if cap(batch) <= maxKeep {
		c.spare = batch[:0]
	}
	c.cond.Broadcast()
}

// stillThere returns ErrGone when the file at c.path is no longer the one
// open.
func (c *File) stillThere() error {
	st, err := os.Stat(c.path)
	if err == nil && os.SameFile(st, c.id) {
		return nil
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", c.path, ErrGone)
	}
	return err
}

// syncTo returns once record seq is on disk. Writers that queue behind a
// running fsync are covered by the next one together: group commit.
func (c *File) syncTo(seq uint64) error {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	if c.synced >= seq {
		return nil
	}
	c.mu.Lock()
	target := c.written
	c.mu.Unlock()
	if err := c.f.Sync(); err != nil {
		return err
	}
	c.synced = target
	return nil
}

func (c *File) flusher() {
	defer close(c.done)
	t := time.NewTicker(syncPeriod)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.mu.Lock()
			n := c.written
			c.mu.Unlock()
			if n > c.synced {
				_ = c.syncTo(n) // a failing disk shows in the next Write or Close
			}
		}
	}
}

// Close flushes the file to disk and closes it.
func (c *File) Close() error {
	select {
	case <-c.stop:
		return nil // already closed
	default:
		close(c.stop)
	}
	<-c.done
	err := c.f.Sync()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	// A file deleted or moved away after the last look (CheckEvery) took
	// records that were acknowledged, and the path holds none of them: the
	// stop must not call the capture whole. (A failure seen during the run
	// was returned by the Write it failed.)
	c.mu.Lock()
	failed := c.err != nil
	c.mu.Unlock()
	if err == nil && !failed {
		err = c.stillThere()
	}
	return err
}

// CheckEvery is how often a File checks that it is still the file at its
// path: a record is acknowledged at most this long after the file was
// deleted or replaced; none after that.
const CheckEvery = 10 * time.Millisecond

// ErrGone says the capture file was deleted, replaced or moved away while
// open: records written to it would no longer be in the file at its path.
var ErrGone = errors.New("the capture file was deleted, replaced or moved away")

// ErrLocked says another listen (another File) is appending to the
// capture file: a second writer is refused (see lockWriter).
var ErrLocked = errors.New("another whsim listen is writing to it (the file is locked); stop that one, or give this one another --capture file")

// Appending is what a capture file held when OpenAppend opened it.
type Appending struct {
	// Records is how many records it held; Counted is false for a new or
	// empty file (see HeldRecords).
	Records int64
	Counted bool
	// Torn says it ended in a torn line (see OpenFile).
	Torn bool
}

// OpenAppend opens path as OpenFile does for a run that appends to it,
// and says what the file already held.
func OpenAppend(ctx context.Context, path string, mode Sync) (*File, Appending, error) {
	if err := checkAppendable(ctx, path); err != nil {
		return nil, Appending{}, err
	}
	f, torn, err := OpenFile(path, mode)
	if err != nil {
		return nil, Appending{}, err
	}
	// The torn line OpenFile ended is no whole record: not counted.
	n, ok := heldRecords(ctx, path)
	return f, Appending{Records: n, Counted: ok, Torn: torn}, nil
}

// regularFile says path is a regular file, looked at before it is opened
// to be read: opening a FIFO for reading blocks until a writer comes, deaf
// to Ctrl-C and SIGTERM.
func regularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// checkAppendable says why the existing file at path is no capture to
// append to: it holds payloads, or is not JSON (a typo, --capture
// receipt.json), so records appended would mix two kinds, and its lines
// are no records to count. Nil for a capture, and for a file that is new,
// empty or not regular (OpenFile says what is wrong with one it cannot
// open). Checked before anything is written to it.
func checkAppendable(ctx context.Context, path string) error {
	if !regularFile(path) {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil
	}
	err = CheckInput(path, input.NewReader(ctx, f, input.Options{Name: path}))
	if _, ok := errors.AsType[*PayloadsError](err); ok {
		return fmt.Errorf("%s holds payloads, not capture records: records appended to it would mix the two", path)
	}
	return err
}
