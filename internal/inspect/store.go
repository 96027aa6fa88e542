// Package inspect is the web inspector behind `whsim listen --ui` and
// `whsim inspect`: a store of calls (a bounded window in memory, older calls
// read back from the capture file), a JSON API over it with a server-sent
// event stream, and an embedded static page that uses the API.
package inspect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/validate"
)

// DefaultWindow is how many calls a store keeps in memory.
const DefaultWindow = 10000

// Call is one call in the store. Nothing writes to it once stored.
type Call struct {
	ID        uint64
	Record    *capture.Record
	Findings  []validate.Finding
	Verdict   string
	Event     string // the query's businessType, "" when there is none
	RequestID string // the body's requestId, "" when there is none
	Size      int    // the request body's size in bytes
	body      []byte
}

// Body is the request body byte for byte; read it, never write to it.
func (c *Call) Body() []byte { return c.body }

// Status is the status listen answered with, 0 when none was recorded.
func (c *Call) Status() int {
	if c.Record.Response == nil {
		return 0
	}
	return c.Record.Response.Status
}

// newCall makes a call of a record; body is the request body when the
// caller has it (listen does), nil to decode it from the record.
func newCall(id uint64, rec *capture.Record, body []byte, fs []validate.Finding) *Call {
	c := newCallWithID(id, rec, body, fs)
	if start, end := deliver.FindRequestID(c.body); start >= 0 {
		c.RequestID = string(c.body[start:end])
	}
	return c
}

// newCallWithID is newCall without looking for the requestId, for a caller
// that has read it already.
func newCallWithID(id uint64, rec *capture.Record, body []byte, fs []validate.Finding) *Call {
	c := &Call{ID: id, Record: rec, Findings: fs, Verdict: validate.Verdict(fs)}
	c.Event, _ = rec.Event()
	if body == nil {
		var err error
		if body, err = rec.RequestBody(); err != nil {
			body = []byte(rec.Body) // a record that says base64 and is not: shown as stored
		}
	}
	c.body = body
	c.Size = len(body)
	return c
}

// Store holds the newest calls in a ring and, when its calls are records of
// a capture file, reads older ones back from the file. Safe for concurrent
// use.
type Store struct {
	mu      sync.Mutex
	ring    []*Call // ring[(first+i)%len] is the i-th oldest in the window
	first   int
	n       int
	last    uint64        // the newest call's ID
	changed chan struct{} // closed when a call is added

	older   *fileIndex // nil: nothing is kept beyond the window; its offsets are guarded by mu
	loaded  bool       // by LoadFile: no calls are added after
	dropped atomic.Uint64
}

// NewStore returns an empty store keeping window calls (DefaultWindow when
// window <= 0).
func NewStore(window int) *Store {
	if window <= 0 {
		window = DefaultWindow
	}
	return &Store{ring: make([]*Call, window), changed: make(chan struct{})}
}

// NewFileStore returns an empty store keeping window calls whose records
// are in the capture file at path: a call that left the window is read
// back from the file, at the offset it was added with, and checked again
// with check.
func NewFileStore(path string, window int, check func(*capture.Record) []validate.Finding) *Store {
	s := NewStore(window)
	s.older = &fileIndex{path: path, check: check}
	return s
}

// Add stores a call that is in no file and returns it; its ID is one more
// than the last.
func (s *Store) Add(rec *capture.Record, fs []validate.Finding) *Call {
	return s.add(newCall(0, rec, nil, fs), noOffset)
}

// noOffset is the offset of a call that is not in the store's file.
const noOffset = -1

// add stores c, whose record starts at offset in the store's file.
func (s *Store) add(c *Call, offset int64) *Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	c.ID = s.last
	if s.older != nil {
		s.older.add(offset)
	}
	if s.n < len(s.ring) {
		s.ring[(s.first+s.n)%len(s.ring)] = c
		s.n++
	} else {
		s.ring[s.first] = c
		s.first = (s.first + 1) % len(s.ring)
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return c
}

// Last is the newest call's ID, 0 when the store is empty.
func (s *Store) Last() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Kept is the oldest ID a stream sends: the window's oldest, or 1 when
// the store was loaded from a file. A store fed live (listen) reads older
// calls back for a listing, never for a stream: a page that falls behind
// would otherwise have listen read and check again, from the file, the
// calls it is taking in.
func (s *Store) Kept() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded {
		return 1
	}
	return s.oldestLocked()
}

// Dropped is how many calls a Feed could not hand over (its queue was full).
func (s *Store) Dropped() uint64 { return s.dropped.Load() }

// oldestLocked returns the oldest ID in the window (last+1 when empty).
func (s *Store) oldestLocked() uint64 { return s.last - uint64(s.n) + 1 }

func (s *Store) atLocked(id uint64) *Call {
	old := s.oldestLocked()
	if id < old || id > s.last {
		return nil
	}
	return s.ring[(s.first+int(id-old))%len(s.ring)]
}

// Get returns a call by ID, from the window or the capture file.
func (s *Store) Get(id uint64) (*Call, error) {
	s.mu.Lock()
	c := s.atLocked(id)
	older := s.older
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if id == 0 || id > s.Last() || older == nil {
		return nil, ErrNotFound
	}
	return s.readBack(id)
}

// readBack reads call id from the store's file.
func (s *Store) readBack(id uint64) (*Call, error) {
	s.mu.Lock()
	off := s.older.at(id)
	s.mu.Unlock()
	if off == noOffset {
		return nil, ErrNotFound
	}
	return s.older.read(id, off)
}

// ErrNotFound says no call has that ID (or it left the window with no
// capture file to read it back from, or was never recorded in it).
var ErrNotFound = errors.New("no such call")

// Newest returns up to limit calls matching f with IDs below before (0: no
// bound), newest first, reading the capture file past the window.
func (s *Store) Newest(before uint64, f Filter, limit int) ([]*Call, error) {
	s.mu.Lock()
	if before == 0 || before > s.last {
		before = s.last + 1
	}
	var out []*Call
	id := before - 1
	for old := s.oldestLocked(); id >= old && id > 0 && len(out) < limit; id-- {
		if c := s.atLocked(id); f.match(c) {
			out = append(out, c)
		}
	}
	older := s.older
	s.mu.Unlock()
	if older == nil {
		return out, nil
	}
	for ; id > 0 && len(out) < limit; id-- {
		c, err := s.readBack(id)
		if errors.Is(err, ErrNotFound) {
			continue // not recorded: listen's capture failed
		}
		if err != nil {
			return out, err
		}
		if f.match(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// After returns up to limit calls matching f with IDs above after, oldest
// first; upTo, the last ID it looked at (the next call to ask after); and
// a channel closed when a call newer than upTo arrives.
func (s *Store) After(after uint64, f Filter, limit int) (calls []*Call, upTo uint64, changed <-chan struct{}, err error) {
	s.mu.Lock()
	changed, last, old, older := s.changed, s.last, s.oldestLocked(), s.older
	id := after + 1
	if id < old && older == nil {
		id = old // gone, with no file to read them from
	}
	if id >= old {
		for ; id <= last && len(calls) < limit; id++ {
			if c := s.atLocked(id); f.match(c) {
				calls = append(calls, c)
			}
		}
		s.mu.Unlock()
		return calls, id - 1, changed, nil
	}
	s.mu.Unlock()
	// Behind the window: read the file; the caller asks again for the rest.
	for ; id < old && len(calls) < limit; id++ {
		c, err := s.readBack(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return calls, id - 1, changed, err
		}
		if f.match(c) {
			calls = append(calls, c)
		}
	}
	return calls, id - 1, changed, nil
}

// Filter narrows a listing. The zero Filter matches every call.
type Filter struct {
	Event   string // a businessType, or "-" for calls without one
	Verdict string // valid, warning or invalid
	Status  string // a code (404) or a class (4xx)
	// Query is searched for, case-insensitively, in the requestId, path,
	// query, header names and (masked) values and the body text.
	Query string
	// Mask masks header values before they are searched; nil searches
	// them as they are.
	Mask func(http.Header) http.Header
}

func (f Filter) match(c *Call) bool {
	switch {
	case f.Event == "-" && c.Event != "", f.Event != "" && f.Event != "-" && c.Event != f.Event:
		return false
	case f.Verdict != "" && c.Verdict != f.Verdict:
		return false
	case f.Status != "" && !statusMatch(f.Status, c.Status()):
		return false
	case f.Query == "":
		return true
	}
	q := strings.ToLower(f.Query)
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), q) }
	if has(c.RequestID) || has(c.Record.Path) || has(c.Record.Query) || has(string(c.body)) {
		return true
	}
	h := c.Record.Headers
	if f.Mask != nil {
		h = f.Mask(h)
	}
	for k, vs := range h {
		if has(k) {
			return true
		}
		for _, v := range vs {
			if has(v) {
				return true
			}
		}
	}
	return false
}

// statusMatch matches a code against "404" or a class "4xx".
func statusMatch(want string, status int) bool {
	if len(want) == 3 && strings.EqualFold(want[1:], "xx") {
		return strconv.Itoa(status)[:1] == want[:1]
	}
	return want == strconv.Itoa(status)
}

// fileIndex reads records back from a capture file by ID. It keeps eight
// bytes a call, in chunks that never move: no pointers for the collector
// to scan and no copy of the whole index as it grows.
type fileIndex struct {
	path   string
	chunks [][]int64 // the offset of call id is chunks[(id-1)/indexChunk][(id-1)%indexChunk]
	n      uint64
	check  func(*capture.Record) []validate.Finding
}

// indexChunk is how many offsets a chunk holds (512 KiB).
const indexChunk = 1 << 16

func (x *fileIndex) add(offset int64) {
	if x.n%indexChunk == 0 {
		x.chunks = append(x.chunks, make([]int64, 0, indexChunk))
	}
	last := len(x.chunks) - 1
	x.chunks[last] = append(x.chunks[last], offset)
	x.n++
}

// at is where call id starts, noOffset when it is not in the file.
func (x *fileIndex) at(id uint64) int64 {
	if id == 0 || id > x.n {
		return noOffset
	}
	return x.chunks[(id-1)/indexChunk][(id-1)%indexChunk]
}

// read reads call id, at off in the file.
func (x *fileIndex) read(id uint64, off int64) (*Call, error) {
	f, err := os.Open(x.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	rec, err := capture.NewReader(f).Next()
	if err != nil {
		return nil, fmt.Errorf("%s: record %d at byte %d: %w", x.path, id, off, err)
	}
	return newCall(id, rec, nil, x.check(rec)), nil
}

// Skipped is a line of a capture file that is not a record.
type Skipped struct {
	Line int
	Err  error
}

// LoadFile reads a capture file ("-": stdin) into a new store keeping
// window calls; older ones are read back from the file when asked for (a
// pipe's are not kept). check validates a record. It returns the lines
// that were skipped (not records, larger than input.Max, or a torn last
// line) with why. An input that holds payloads, or is not JSON, is refused
// (capture.CheckInput); reading gives way to ctx.
func LoadFile(ctx context.Context, path string, stdin io.Reader, window int, check func(*capture.Record) []validate.Finding) (*Store, []Skipped, error) {
	f, err := ctxio.OpenInput(ctx, path, stdin)
	if err != nil {
		return nil, nil, cmp.Or(ctx.Err(), err)
	}
	defer f.Close()
	s := NewStore(window)
	if file, ok := f.(*os.File); ok {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			s = NewFileStore(path, window, check)
		}
	}
	rd := input.NewReader(ctx, f, input.Options{Name: path, Buffer: 64 << 10})
	if err := capture.CheckInput(path, rd); err != nil {
		return nil, nil, cmp.Or(ctx.Err(), err)
	}
	r := capture.ReaderOf(rd)
	var skipped []Skipped
	for {
		rec, err := r.Next()
		var torn *capture.TornError
		var bad *capture.LineError
		switch {
		case errors.Is(err, io.EOF):
			s.loaded = true
			return s, skipped, nil
		case errors.As(err, &torn):
			skipped = append(skipped, Skipped{Line: torn.Line, Err: torn.Err})
			continue
		case errors.As(err, &bad):
			skipped = append(skipped, Skipped{Line: bad.Line, Err: bad.Err})
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		s.add(newCall(0, rec, nil, check(rec)), r.Offset())
	}
}

// Feed hands calls to a store without ever making the caller wait: a call
// that finds the queue full is dropped from the inspector (and counted),
// never held up. Calls are stored on the feed's own goroutine, in batches:
// a wake-up per call cost listen more than storing them.
type Feed struct {
	s    *Store
	mu   sync.Mutex // guards queue and closed, held only to append or swap
	q    []fed
	wake chan struct{} // one pending wake-up at most
	stop chan struct{}
	done chan struct{}
}

type fed struct {
	rec  *capture.Record
	off  int64
	body []byte
	id   string
	fs   []validate.Finding
}

// FeedQueue bounds a Feed's queue: storing a call takes microseconds, so
// it fills only when the feed's goroutine gets no CPU at all.
const FeedQueue = 16384

// NewFeed starts a feed into s. Close it to store what is queued.
func (s *Store) NewFeed() *Feed {
	f := &Feed{s: s, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go f.run()
	return f
}

func (f *Feed) run() {
	defer close(f.done)
	var batch []fed
	for {
		stopping := false
		select {
		case <-f.wake:
		case <-f.stop:
			stopping = true
		}
		f.mu.Lock()
		batch, f.q = f.q, batch[:0]
		f.mu.Unlock()
		for i, c := range batch {
			call := newCallWithID(0, c.rec, c.body, c.fs)
			call.RequestID = c.id
			f.s.add(call, c.off)
			batch[i] = fed{} // let the GC have what the store lets go
		}
		if stopping {
			return
		}
	}
}

// Offer queues a call for the store and reports whether it was taken.
// offset is where rec starts in the store's file (see NewFileStore), -1
// when it is not there; body is the request body (nil: decode it from the
// record) and requestID the body's requestId as the caller read it (""
// for none): listen has both at hand. None of them may be written to
// afterwards.
func (f *Feed) Offer(rec *capture.Record, offset int64, body []byte, requestID string, fs []validate.Finding) bool {
	f.mu.Lock()
	if len(f.q) >= FeedQueue {
		f.mu.Unlock()
		f.s.dropped.Add(1)
		return false
	}
	f.q = append(f.q, fed{rec: rec, off: offset, body: body, id: requestID, fs: fs})
	first := len(f.q) == 1
	f.mu.Unlock()
	if first {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// Close stores every queued call and stops the feed. Offer must not be
// called after it.
func (f *Feed) Close() {
	close(f.stop)
	<-f.done
}
