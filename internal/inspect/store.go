// Package inspect is the web inspector behind `whsim listen --ui` and
// `whsim inspect`: a store of calls (a bounded window in memory, older calls
// read back from the capture file), a JSON API over it with a server-sent
// event stream, and an embedded static page that uses the API.
package inspect

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// DefaultWindow is how many calls a store keeps in memory.
const DefaultWindow = 10000

// defaultWindowBytes bounds the bodies a store keeps in memory, whatever
// the count: beyond it the oldest calls keep their summary and links and
// their bodies are read back from the capture file when asked for.
const defaultWindowBytes = 256 << 20

// call is one call in the store. Nothing writes to it once stored.
type call struct {
	ID     uint64
	Record *capture.Record
	// Findings are the first maxFindings of the call's findings;
	// FindingCount counts them all, and Verdict is made of them all.
	Findings     []validate.Finding
	FindingCount int
	Verdict      string
	Event        string // the query's businessType, "" when there is none
	RequestID    string // the body's requestId, "" when there is none
	// NoRequestID says the body names none (reqid.Named): the API gives
	// null, apart from a body that names an empty one, as listen does.
	NoRequestID bool
	Size        int // the request body's size in bytes
	// Flags are what listen prints under the call as FLAG lines (the
	// receiver behind --forward-to accepted an invalid call, refused a
	// re-delivery).
	Flags []receiver.Flag
	// RepeatOf is the call before with the same requestId (0: none);
	// PrevDoc the call before about the same document (Doc).
	RepeatOf, PrevDoc uint64
	doc               uint64 // the hash of the document the call is about, 0 none (linker.docHash)
	body              []byte
	// content is the document the body carries: the body with its
	// Content-Encoding undone (decoded names the codings), else body
	// itself. The tree, the search, the diff and the links read it; the
	// download and the commands send body, as it came.
	content []byte
	decoded string
	shed    bool  // the bodies left memory: read them back (see Store.fetch)
	bytes   int64 // what the call holds, counted against the window's bytes
	// tooLarge, on a call whose bodies left memory, says that its record
	// is larger than whsim reads back (input.Max), and where it is: the
	// file has the bodies, the inspector cannot give them.
	tooLarge string
}

// Body is the request body byte for byte; read it, never write to it.
func (c *call) Body() []byte { return c.body }

// BodyGone says the call's bodies left memory and there is no capture
// file to read them back from.
func (c *call) BodyGone() bool { return c.shed && c.tooLarge == "" }

// notKept says why a call has no body to download, compare or send,
// though it has a record: "" when it has one or its body left memory
// (BodyGone says that). An empty body served in its place would read as
// the call's.
func (c *call) notKept() string {
	r := c.Record
	switch {
	case c.tooLarge != "":
		return c.tooLarge
	case r.Rejected != nil && r.Rejected.ClosedAtStop:
		return "listen's stop closed it unread as it arrived (Ctrl-C or SIGTERM): no body was kept"
	case r.Rejected != nil:
		return "the HTTP server refused it before listen could read it: no body was kept"
	case r.BodyOverLimit > 0:
		return "its body was over listen's --max-body of " + strconv.FormatInt(r.BodyOverLimit, 10) + " bytes and was not kept"
	}
	return ""
}

// Status is the status listen answered with, 0 when none was recorded.
func (c *call) Status() int {
	if c.Record.Response == nil {
		return 0
	}
	return c.Record.Response.Status
}

// newCall makes a call of a record; body is the request body when the
// caller has it (listen does), nil to decode it from the record.
func newCall(id uint64, rec *capture.Record, body []byte, fs []validate.Finding) *call {
	c := newCallWithID(id, rec, body, fs)
	var named bool
	c.RequestID, named = reqid.Lookup(c.content)
	c.NoRequestID = !named
	return c
}

// newCallWithID is newCall without looking for the requestId, for a caller
// that has read it already.
func newCallWithID(id uint64, rec *capture.Record, body []byte, fs []validate.Finding) *call {
	c := &call{ID: id, Record: rec, Findings: fs, FindingCount: len(fs), Verdict: validate.Verdict(fs)}
	if len(fs) > maxFindings {
		c.Findings = make([]validate.Finding, maxFindings) // not the rest's array
		copy(c.Findings, fs)
	}
	c.Event, _ = rec.Event()
	if body == nil {
		var err error
		if body, err = rec.RequestBody(); err != nil {
			body = []byte(rec.Body) // a record that says base64 and is not: shown as stored
		}
	}
	c.body = body
	c.content, c.decoded = documentOf(rec, body)
	c.Size = len(body)
	c.bytes = callBytes(c)
	return c
}

// documentOf is the document body carries, and the codings undone to get
// it ("" none): a body sent gzip or deflate (Content-Encoding) decoded as
// validate decodes it to check it, bounded as a payload is; body itself
// when it has no coding or does not decode (the findings say why).
func documentOf(rec *capture.Record, body []byte) ([]byte, string) {
	codings := capture.ContentCodings(rec.Headers)
	if codings == nil || len(body) == 0 {
		return body, ""
	}
	doc, err := capture.DecodeContent(body, codings, input.Max)
	if err != nil {
		return body, ""
	}
	return doc, strings.Join(codings, ", ")
}

// maxFindings bounds the findings a call keeps. A body of many lines that
// each carry a field the spec does not know has a finding per field
// (600,005 for one of 7 MB): kept whole they would cost more memory than
// the window's bound on bodies, and stay when the body is shed; the page
// shows the first ones and the count, and whsim validate lists them all.
const maxFindings = 1000

// callOverhead is what a call holds besides its bodies, roughly: the
// record, its headers, the summary's strings.
const callOverhead = 1 << 10

// callBytes counts the bodies a call holds (the record's string and the
// decoded body are counted apart: they may or may not share memory).
func callBytes(c *call) int64 {
	r := c.Record
	n := int64(len(c.body) + len(r.Body) + callOverhead)
	if c.decoded != "" {
		n += int64(len(c.content))
	}
	if r.Response != nil {
		n += int64(len(r.Response.Body))
	}
	if r.Forward != nil {
		n += int64(len(r.Forward.Body))
	}
	return n
}

// light is c without its bodies (request, response, forwarded answer):
// its summary, findings, flags and links stay.
func (c *call) light() *call {
	l := *c
	rec := *c.Record
	rec.DropBody() // not Body = "": a body listen shared is held by the record's copy too
	if rec.Response != nil {
		r := *rec.Response
		r.Body = ""
		rec.Response = &r
	}
	if rec.Forward != nil {
		f := *rec.Forward
		f.Body = ""
		rec.Forward = &f
	}
	l.Record, l.body, l.content, l.shed, l.bytes = &rec, nil, nil, true, 0
	return &l
}

// Store holds the newest calls in a ring, bounded by count and by the
// bytes of their bodies, and, when its calls are records of a capture
// file, reads older ones (and bodies that left memory) back from the file.
// Safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	ring     []*call // ring[(first+i)%len] is the i-th oldest in the window
	first    int
	n        int
	last     uint64        // the newest call's ID
	changed  chan struct{} // closed when a call is added
	maxBytes int64         // bound on held
	held     int64         // the bytes the window's calls hold
	shedTo   uint64        // calls in the window below this ID are light
	links    *linker
	bound    workDone // what one listing may look at (scanCalls, scanBytes)

	older   *fileIndex // nil: nothing is kept beyond the window; its entries are guarded by mu
	loaded  bool       // by LoadFile: no calls are added after
	dropped atomic.Uint64
	// big keeps, by ID, the calls with a body of bigBody or more that left
	// the window, without their bodies: such a record may be larger than
	// whsim reads back (input.Max), and what the window knew of the call
	// is then all a listing can show of it. Each stands for bigBody bytes
	// of the file at least, and keeps a few KiB. Guarded by mu.
	big map[uint64]*call
}

// NewStore returns an empty store keeping window calls (DefaultWindow when
// window <= 0) and DefaultWindowBytes of bodies.
func NewStore(window int) *Store {
	if window <= 0 {
		window = DefaultWindow
	}
	return &Store{ring: make([]*call, window), changed: make(chan struct{}), maxBytes: defaultWindowBytes, links: newLinker(),
		bound: workDone{calls: scanCalls, bytes: scanBytes}}
}

// LimitBytes bounds the bytes the window holds (the newest call is kept
// whole whatever its size) and returns s. Call it before adding calls.
func (s *Store) LimitBytes(n int64) *Store {
	s.maxBytes = n
	return s
}

// Held is how many bytes the window's calls hold, as counted against the
// bound (LimitBytes).
func (s *Store) Held() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// newFileStore returns an empty store keeping window calls whose records
// are in the capture file at path: a call that left the window is read
// back from the file, at the offset it was added with, and checked again
// with check.
func newFileStore(path string, window int, check func(*capture.Record) []validate.Finding) *Store {
	s := NewStore(window)
	s.older = &fileIndex{path: path, check: check}
	return s
}

// Add stores a call that is in no file and returns it; its ID is one more
// than the last.
func (s *Store) Add(rec *capture.Record, fs []validate.Finding) *call {
	return s.add(newCall(0, rec, nil, fs), noOffset)
}

// noOffset is the offset of a call that is not in the store's file.
const noOffset = -1

// add stores c, whose record starts at offset in the store's file.
func (s *Store) add(c *call, offset int64) *call {
	if c.body != nil {
		c.doc = s.links.docHash(c.Event, c.content)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	c.ID = s.last
	s.links.link(c)
	if s.older != nil {
		s.older.add(makeEntry(c.ID, offset, c))
	}
	if s.n < len(s.ring) {
		s.ring[(s.first+s.n)%len(s.ring)] = c
		s.n++
	} else {
		old := s.ring[s.first]
		s.held -= old.bytes
		if s.older != nil && (old.Size >= bigBody || old.tooLarge != "") {
			s.keepBig(old)
		}
		s.ring[s.first] = c
		s.first = (s.first + 1) % len(s.ring)
	}
	if c.shed && s.older != nil && offset != noOffset && int64(c.Size) > input.Max {
		c.tooLarge = s.older.tooLarge(offset) // its body alone is over it
	}
	s.held += c.bytes
	s.shedLocked()
	close(s.changed)
	s.changed = make(chan struct{})
	return c
}

// shedLocked makes the oldest calls light until the window holds no more
// than its bytes, the newest call aside.
func (s *Store) shedLocked() {
	if old := s.oldestLocked(); s.shedTo < old {
		s.shedTo = old
	}
	for s.held > s.maxBytes && s.shedTo < s.last {
		i := (s.first + int(s.shedTo-s.oldestLocked())) % len(s.ring)
		if c := s.ring[i]; !c.shed {
			s.held -= c.bytes
			l := c.light()
			if s.older != nil && int64(c.Size) > input.Max {
				if e, ok := s.older.at(c.ID); ok && e.off() != noOffset {
					l.tooLarge = s.older.tooLarge(e.off())
				}
			}
			s.ring[i] = l
		}
		s.shedTo++
	}
}

// bigBody is the body from which a call that leaves the window is kept
// in Store.big: a record's body stored as JSON text may take up to six
// times its bytes (\u0000), so with a smaller one the record is over
// input.Max only by its other parts (headers, answers), and such a call
// is then listed with what the index keeps of it (tooLargeCall).
const bigBody = input.Max / 8

// bigFindings bounds the findings a call kept in Store.big keeps (its
// FindingCount counts them all).
const bigFindings = 100

// keepBig keeps c, which leaves the window, in s.big without its bodies.
// mu is held.
func (s *Store) keepBig(c *call) {
	l := c.light()
	if len(l.Findings) > bigFindings {
		l.Findings = slices.Clone(l.Findings[:bigFindings])
	}
	if s.big == nil {
		s.big = make(map[uint64]*call)
	}
	s.big[c.ID] = l
}

// tooLarge says that the record at off in the file is larger than whsim
// reads back.
func (x *fileIndex) tooLarge(off int64) string {
	return fmt.Sprintf("its record, at byte %d of %s, is larger than the %d MiB whsim reads back: too large to show", off, x.path, input.Max>>20)
}

// tooLargeCall is call id, whose record at e is larger than whsim reads
// back, as far as it is known without the record: c, the window's
// (nil: the one kept in big, else only what the index keeps).
func (s *Store) tooLargeCall(id uint64, c *call, e entry) *call {
	if c == nil {
		s.mu.Lock()
		c = s.big[id]
		s.mu.Unlock()
	}
	var l *call
	if c != nil {
		l = c.light()
		if l.tooLarge != "" {
			return l // said already, by its line
		}
	} else {
		l = &call{ID: id, Record: &capture.Record{}, shed: true}
		if i := int(e.event()); i > 0 && i <= len(spec.Events()) {
			l.Event = spec.Events()[i-1].Name
		}
		l.RepeatOf, l.PrevDoc = e.prevReq(id), e.prevDoc(id)
	}
	l.tooLarge = s.older.tooLarge(e.off())
	return l
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

func (s *Store) atLocked(id uint64) *call {
	old := s.oldestLocked()
	if id < old || id > s.last {
		return nil
	}
	return s.ring[(s.first+int(id-old))%len(s.ring)]
}

// lowest is the oldest ID the store can give: 1 with a file, else the
// window's oldest.
func (s *Store) lowest() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.older != nil {
		return 1
	}
	return s.oldestLocked()
}

// Get returns a call by ID, whole, from the window or the capture file.
func (s *Store) Get(id uint64) (*call, error) {
	br := s.reader()
	defer br.close()
	return s.fetch(br, id, true)
}

// fetch returns call id; with body, a light call is read back from the
// file (when there is one) to have its bodies.
func (s *Store) fetch(br *backReader, id uint64, body bool) (*call, error) {
	s.mu.Lock()
	c := s.atLocked(id)
	var e entry
	ok := false
	if s.older != nil && id > 0 && id <= s.last {
		e, ok = s.older.at(id)
	}
	if b := s.big[id]; c == nil && b != nil && b.tooLarge != "" {
		c = b // known too large: not read through again
	}
	s.mu.Unlock()
	if c != nil && (!c.shed || !body || s.older == nil || c.tooLarge != "") {
		return c, nil
	}
	if !ok || e.off() == noOffset {
		if c != nil {
			return c, nil // listen could not record it: what memory has
		}
		return nil, errNotFound
	}
	full, err := br.read(id, e)
	if _, over := errors.AsType[*input.TooLargeError](err); over {
		// Listed as what it is rather than failing the listing, search
		// or export that reached it, which lost every call beside it.
		return s.tooLargeCall(id, c, e), nil
	}
	if err != nil {
		return nil, err
	}
	if c != nil {
		full.Flags, full.RepeatOf, full.PrevDoc, full.doc = c.Flags, c.RepeatOf, c.PrevDoc, c.doc
	}
	return full, nil
}

// cursor walks a store's calls one way, taking the window's a batch at a
// time under one lock (a stream under load looks at every call, and a lock
// a call contended with the feed adding them).
type cursor struct {
	s      *Store
	br     *backReader
	body   bool // the caller needs bodies: light calls are read back
	down   bool // newest first
	lo, hi uint64
	buf    [64]*call // buf[i] is call lo+i when in the window
}

func (s *Store) cursor(body, down bool) *cursor {
	return &cursor{s: s, br: s.reader(), body: body, down: down}
}

func (c *cursor) close() { c.br.close() }

// at is call id, as Store.fetch gives it.
func (c *cursor) at(id uint64) (*call, error) {
	if c.hi == 0 || id < c.lo || id > c.hi {
		c.lo = id
		if c.down {
			c.lo = max(1, id-uint64(len(c.buf))+1)
		}
		c.hi = c.lo + uint64(len(c.buf)) - 1
		c.s.mu.Lock()
		for i := range c.buf {
			c.buf[i] = c.s.atLocked(c.lo + uint64(i))
		}
		c.s.mu.Unlock()
	}
	if x := c.buf[id-c.lo]; x != nil && (!x.shed || !c.body || c.s.older == nil || x.tooLarge != "") {
		return x, nil
	}
	return c.s.fetch(c.br, id, c.body)
}

// errNotFound says no call has that ID (or it left the window with no
// capture file to read it back from, or was never recorded in it).
var errNotFound = errors.New("no such call")

// Bounds on the work of one listing or search: past them it stops and
// says where to go on from (Newest's next).
const (
	scanCalls = 20000
	scanBytes = 256 << 20
)

// Newest returns up to limit calls matching f with IDs below before (0: no
// bound), newest first, reading the capture file past the window. It looks
// at no more than scanCalls calls and scanBytes of bodies, and stops when
// ctx is done; next is the before to ask with for the rest, 0 when the
// oldest call was looked at.
func (s *Store) Newest(ctx context.Context, before uint64, f filter, limit int) (calls []*call, next uint64, err error) {
	s.mu.Lock()
	if before == 0 || before > s.last {
		before = s.last + 1
	}
	s.mu.Unlock()
	low := s.lowest()
	cur := s.cursor(f.needsBody(), true)
	defer cur.close()
	var work workDone
	id := before - 1
	for ; id >= low && id > 0 && len(calls) < limit; id-- {
		if work.over(s.bound) {
			break
		}
		if err := ctx.Err(); err != nil {
			return calls, 0, err
		}
		c, err := cur.at(id)
		if errors.Is(err, errNotFound) {
			continue // not recorded: listen's capture failed
		}
		if err != nil {
			return calls, 0, err
		}
		work.add(c, f.needsBody())
		if f.match(c) {
			calls = append(calls, c)
		}
	}
	if id < low || id == 0 {
		return calls, 0, nil
	}
	return calls, id + 1, nil
}

// workDone counts what a listing looked at, against scanCalls and scanBytes.
type workDone struct {
	calls int
	bytes int64
}

// add counts c, and its body when the listing searched it.
func (w *workDone) add(c *call, body bool) {
	w.calls++
	if body {
		w.bytes += int64(c.Size)
	}
}

func (w *workDone) over(bound workDone) bool { return w.calls >= bound.calls || w.bytes >= bound.bytes }

// After returns up to limit calls matching f with IDs above after, oldest
// first; upTo, the last ID it looked at (the next call to ask after); and
// a channel closed when a call newer than upTo arrives. It looks at no
// more than scanCalls calls and scanBytes of bodies and stops when ctx is
// done.
func (s *Store) After(ctx context.Context, after uint64, f filter, limit int) (calls []*call, upTo uint64, changed <-chan struct{}, err error) {
	s.mu.Lock()
	changed, last, old, older := s.changed, s.last, s.oldestLocked(), s.older
	s.mu.Unlock()
	id := after + 1
	if id < old && older == nil {
		id = old // gone, with no file to read them from
	}
	cur := s.cursor(f.needsBody(), false)
	defer cur.close()
	var work workDone
	for ; id <= last && len(calls) < limit && !work.over(s.bound); id++ {
		if err := ctx.Err(); err != nil {
			return calls, id - 1, changed, err
		}
		c, err := cur.at(id)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return calls, id - 1, changed, err
		}
		work.add(c, f.needsBody())
		if f.match(c) {
			calls = append(calls, c)
		}
	}
	return calls, id - 1, changed, nil
}

// Each calls fn with every call, whole, oldest first, one at a time: what
// it holds at once is one call, whatever the store's size. It stops at
// fn's first error or when ctx is done.
func (s *Store) Each(ctx context.Context, fn func(*call) error) error {
	low, last := s.lowest(), s.Last()
	cur := s.cursor(true, false)
	defer cur.close()
	for id := low; id <= last && id > 0; id++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := cur.at(id)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// link is a call related to another: its ID and event.
type link struct {
	ID    uint64 `json:"id"`
	Event string `json:"event"`
}

// related is a chain of calls linked to one, as its detail shows it: the
// links, oldest first, up to maxRelated; NotShown, when more were linked,
// says how many were left out on either side.
type related struct {
	Links    []link
	NotShown *notShown
}

// notShown counts the links of a chain left out past maxRelated: Older
// before the first shown, Newer after the last. OlderAtLeast says the walk
// stopped at its bound with more before it, so Older is a lower bound.
type notShown struct {
	Older        int  `json:"older"`
	Newer        int  `json:"newer"`
	OlderAtLeast bool `json:"olderAtLeast,omitempty"`
}

// Related lists the calls linked to c, oldest first, c among them: those
// with its requestId and those about its document, up to maxRelated each,
// with how many more there are; no links when c is alone. It reads only
// the store's links, not the file.
func (s *Store) Related(c *call) (deliveries, document related) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.RequestID != "" {
		deliveries = s.chainLocked(newest(s.links.reqs, s.links.hash(c.RequestID)), c, func(x *call, e entry, at uint64) uint64 {
			if x != nil {
				return x.RepeatOf
			}
			return e.prevReq(at)
		})
	}
	if c.doc != 0 {
		document = s.chainLocked(newest(s.links.docs, c.doc), c, func(x *call, e entry, at uint64) uint64 {
			if x != nil {
				return x.PrevDoc
			}
			return e.prevDoc(at)
		})
	}
	return deliveries, document
}

// maxRelated bounds a call's list of related calls.
const maxRelated = 50

// chainLocked walks a chain of links back from newest, oldest first in the
// result; with more than maxRelated links it keeps those nearest to c and
// counts the rest: the list stopped at 50 and said nothing of them.
func (s *Store) chainLocked(newest uint64, c *call, prev func(*call, entry, uint64) uint64) related {
	var out []link
	at := max(newest, c.ID)
	for at > 0 && len(out) < 4*maxRelated {
		x := s.atLocked(at)
		var e entry
		if x == nil {
			if s.older == nil {
				break
			}
			e, _ = s.older.at(at)
		}
		ev := ""
		if x != nil {
			ev = x.Event
		} else if n := int(e.event()); n > 0 && n <= len(spec.Events()) {
			ev = spec.Events()[n-1].Name
		}
		out = append(out, link{ID: at, Event: ev})
		next := prev(x, e, at)
		if next >= at {
			at = 0
			break // a link only ever goes back
		}
		at = next
	}
	// Stopped at the bound with a link still to follow: there are older
	// ones, not counted.
	bounded := len(out) >= 4*maxRelated && at > 0
	slices.Reverse(out)
	i, found := slices.BinarySearchFunc(out, c.ID, func(l link, id uint64) int { return cmp.Compare(l.ID, id) })
	if !found {
		out = slices.Insert(out, i, link{ID: c.ID, Event: c.Event}) // its key was forgotten (maxLinked)
	}
	var ns *notShown
	if len(out) > maxRelated {
		lo := max(0, min(i-maxRelated/2, len(out)-maxRelated))
		ns = &notShown{Older: lo, Newer: len(out) - lo - maxRelated, OlderAtLeast: bounded}
		out = out[lo : lo+maxRelated]
	}
	if len(out) == 1 {
		return related{}
	}
	return related{Links: out, NotShown: ns}
}

// eventIndex is 1 + the index of event in spec.Events, 0 for none.
func eventIndex(event string) uint8 {
	return uint8(slices.IndexFunc(spec.Events(), func(e spec.Event) bool { return e.Name == event }) + 1) // Events allocates nothing
}

// filter narrows a listing. The zero filter matches every call.
type filter struct {
	Event   string // a businessType, or "-" for calls without one
	Verdict string // valid, warning or invalid
	Status  string // a code (404) or a class (4xx)
	// Query is searched for, case-insensitively, in the requestId, path,
	// query, header names and (masked) values and the body text, the
	// query and the body also as the page shows them (decoded: %XX, +,
	// and JSON's escapes, \u82cf for 苏).
	Query string
	// Mask masks header values before they are searched, and says the
	// query's credentials are masked too (termsafe.MaskQuery); nil
	// searches them as they are.
	Mask func(http.Header) http.Header
}

// needsBody says matching needs the call's body.
func (f filter) needsBody() bool { return f.Query != "" }

func (f filter) match(c *call) bool {
	switch {
	case f.Event == "-" && c.Event != "", f.Event != "" && f.Event != "-" && c.Event != f.Event:
		return false
	case f.Verdict != "" && c.Verdict != f.Verdict:
		return false
	case f.Status != "" && !statusMatch(f.Status, c.Status()):
		return false
	case f.Query == "", c.tooLarge != "":
		// A call too large to show has no body here to search: listed,
		// marked so, rather than left out as if it did not match.
		return true
	}
	q := strings.ToLower(f.Query)
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), q) }
	// The query's credentials are searched masked, as the headers' are:
	// the page shows them masked.
	query := c.Record.Query
	if f.Mask != nil {
		query = termsafe.MaskQuery(query)
	}
	if has(c.RequestID) || has(c.Record.Path) || has(c.Record.RawPath) || has(query) || containsFold(c.content, q) {
		return true
	}
	// As the page shows them: the query's parameters and the body's
	// strings decoded.
	if d := queryUnescaped(query); d != "" && has(d) {
		return true
	}
	if d := jsonUnescaped(c.content); d != nil && containsFold(d, q) {
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

// containsFold says b holds lower (lower case), case-insensitively,
// without a lower-cased copy of a body that may be megabytes long.
func containsFold(b []byte, lower string) bool {
	if lower == "" {
		return true
	}
	const chunk = 64 << 10
	for i := 0; i < len(b); i += chunk {
		end := min(len(b), i+chunk+len(lower)) // a match across the cut
		if bytes.Contains(bytes.ToLower(b[i:end]), []byte(lower)) {
			return true
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

// entry is what the file index keeps of a call, in 16 bytes: where its
// record starts, and its links and flags, which depend on the calls before
// it.
type entry struct {
	word       uint64 // the offset + 1 in the low 48 bits (0: not in the file), flags and event above
	dReq, dDoc uint32 // how far back the call before with its requestId, its document is (0: none)
}

const offBits = 48

func makeEntry(id uint64, off int64, c *call) entry {
	back := func(prev uint64) uint32 {
		if prev == 0 || id-prev > 1<<32-1 {
			return 0 // a link that far back is let go
		}
		return uint32(id - prev)
	}
	return entry{
		word: uint64(off+1) | uint64(flagBits(c.Flags))<<offBits | uint64(eventIndex(c.Event))<<(offBits+8),
		dReq: back(c.RepeatOf), dDoc: back(c.PrevDoc),
	}
}

// off is where the record starts, noOffset when it is not in the file.
func (e entry) off() int64               { return int64(e.word&(1<<offBits-1)) - 1 }
func (e entry) flags() uint8             { return uint8(e.word >> offBits) }
func (e entry) event() uint8             { return uint8(e.word >> (offBits + 8)) }
func (e entry) prevReq(id uint64) uint64 { return back(id, e.dReq) }
func (e entry) prevDoc(id uint64) uint64 { return back(id, e.dDoc) }

func back(id uint64, d uint32) uint64 {
	if d == 0 {
		return 0
	}
	return id - uint64(d)
}

// fileIndex reads records back from a capture file by ID. It keeps an
// entry (16 bytes) a call, in chunks that never move: no pointers for the collector
// to scan and no copy of the whole index as it grows.
type fileIndex struct {
	path string
	// file, for inspect's LoadFile, is the file indexed, held open: a
	// file put at path after (a rename: anonymize --out onto it, an
	// editor, a rotation) is another file, whose records at these offsets
	// are other calls. size is how many bytes of it were indexed. nil for
	// listen's capture, which listen itself keeps at path.
	file   *os.File
	size   int64
	chunks [][]entry // call id is chunks[(id-1)/indexChunk][(id-1)%indexChunk]
	n      uint64
	check  func(*capture.Record) []validate.Finding
}

// indexChunk is how many entries a chunk holds.
const indexChunk = 1 << 15

func (x *fileIndex) add(e entry) {
	if x.n%indexChunk == 0 {
		x.chunks = append(x.chunks, make([]entry, 0, indexChunk))
	}
	last := len(x.chunks) - 1
	x.chunks[last] = append(x.chunks[last], e)
	x.n++
}

// at is call id's entry; false when it was never indexed.
func (x *fileIndex) at(id uint64) (entry, bool) {
	if id == 0 || id > x.n {
		return entry{}, false
	}
	return x.chunks[(id-1)/indexChunk][(id-1)%indexChunk], true
}

// reader returns a reader of the store's file for one request: it opens
// the file once and reads on from where it is when the next record
// follows.
func (s *Store) reader() *backReader {
	return &backReader{x: s.older, links: s.links}
}

type backReader struct {
	x     *fileIndex
	links *linker // its seed and paths, which never change, and othersOf
	f     *os.File
	r     *capture.Reader
	base  int64 // the file offset r started at
}

func (b *backReader) close() {
	if b.f != nil {
		b.f.Close()
	}
}

// read reads call id, whose entry is e.
func (b *backReader) read(id uint64, e entry) (*call, error) {
	x := b.x
	if x.file != nil && b.r == nil {
		if fi, err := x.file.Stat(); err != nil || fi.Size() < x.size {
			return nil, fmt.Errorf("%s changed since inspect read it (cut to %d bytes of the %d indexed); restart inspect to see it as it is", x.path, fileSize(fi), x.size)
		}
	}
	if b.f == nil && x.file == nil {
		f, err := os.Open(x.path)
		if err != nil {
			return nil, err
		}
		b.f = f
	}
	// Records read one after another (an export, a stream) need no seek:
	// the next line is likely the one asked for.
	off := e.off()
	if b.r != nil && off > b.base+b.r.Offset() {
		if rec, err := b.r.Next(); err == nil && b.base+b.r.Offset() == off {
			return b.call(id, e, rec), nil
		}
	}
	if x.file != nil {
		// ReadAt: requests in parallel share the one file.
		b.r, b.base = capture.NewReader(io.NewSectionReader(x.file, off, x.size-off)), off
	} else {
		if _, err := b.f.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
		b.r, b.base = capture.NewReader(b.f), off
	}
	rec, err := b.r.Next()
	if err != nil {
		b.r = nil
		return nil, fmt.Errorf("%s: record %d at byte %d: %w", x.path, id, off, err)
	}
	if b.r.Offset() != 0 {
		b.r = nil
		return nil, fmt.Errorf("%s: record %d: no record at byte %d", x.path, id, off)
	}
	return b.call(id, e, rec), nil
}

// fileSize is fi's size, 0 without one.
func fileSize(fi os.FileInfo) int64 {
	if fi == nil {
		return 0
	}
	return fi.Size()
}

func (b *backReader) call(id uint64, e entry, rec *capture.Record) *call {
	c := newCall(id, rec, nil, b.x.check(rec))
	c.RepeatOf, c.PrevDoc = e.prevReq(id), e.prevDoc(id)
	c.Flags = append(flagsOf(e.flags(), c), b.links.othersOf(id)...)
	c.doc = b.links.docHash(c.Event, c.content)
	return c
}

// Skipped is a line of a capture file that is not a record, or a record
// listed all the same that the terminal is told of (Listed).
type Skipped struct {
	Line int
	Err  error
	// Listed says the line is listed all the same: a record larger than
	// whsim reads back, as a call too large to show, or one whose body
	// cannot be decoded (an encoding no listen writes), with its body as
	// stored.
	Listed bool
	// ReplayWarned says the line is listed whole, and Err is what whsim
	// replay warns of as it sends it (capture.Record.ReplayWarning), as
	// the page's replay sends it too: said at the start in replay's words.
	ReplayWarned bool
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
	s := NewStore(window)
	if file, ok := f.(*os.File); ok {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			s = newFileStore(path, window, check)
			s.older.file = file // held for reading back, for the process's life
		}
	}
	if s.older == nil {
		defer f.Close()
	} else {
		defer func() {
			if !s.loaded {
				f.Close()
			}
		}()
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
			if s.older != nil {
				// What was read: up to the end of the file as it is now.
				fi, err := s.older.file.Stat()
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %w", path, err)
				}
				s.older.size = fi.Size()
			}
			return s, skipped, nil
		case errors.As(err, &torn):
			// Said as the torn case it is, last line or one a restarted
			// listen wrote on after.
			skipped = append(skipped, Skipped{Line: torn.Line, Err: torn})
			continue
		case errors.As(err, &bad):
			_, over := errors.AsType[*input.TooLargeError](bad.Err)
			if over && s.older != nil {
				// A call all the same, the page's to list as too large to
				// show, by its line: left out, only the terminal said so.
				c := &call{Record: &capture.Record{}, shed: true,
					tooLarge: fmt.Sprintf("line %d of %s is larger than the %d MiB whsim reads back: too large to show", bad.Line, path, input.Max>>20)}
				s.add(c, r.Offset())
			}
			skipped = append(skipped, Skipped{Line: bad.Line, Err: bad.Err, Listed: over && s.older != nil})
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if _, err := rec.RequestBody(); err != nil {
			// Listed with its body as stored and validate's finding, but
			// said at the start too, at its line: replay skips it with
			// this warning, and the page alone hid it in a long list.
			skipped = append(skipped, Skipped{Line: r.Line(), Err: err, Listed: true})
		} else if why := rec.ReplayWarning(); why != "" && rec.BodyOverLimit == 0 {
			// A body shorter than its Content-Length: replay and
			// validate warn of it, and the page alone showed it as a
			// call like any other.
			skipped = append(skipped, Skipped{Line: r.Line(), Err: errors.New(why), Listed: true, ReplayWarned: true})
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
	held int64         // the bytes of the queue's bodies
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
	size int    // the body's size, when it was left out (light)
	doc  uint64 // the document's hash, read before the body was left out
}

// feedQueue bounds a Feed's queue: storing a call takes microseconds, so
// it fills only when the feed's goroutine gets no CPU at all.
const feedQueue = 16384

// feedQueueBytes bounds the bodies a Feed's queue holds: past it a call is
// queued without its bodies, which are read back from the capture file
// (without one, they are gone from the page).
const feedQueueBytes = 64 << 20

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
		f.held = 0
		f.mu.Unlock()
		for i, c := range batch {
			call := newCallWithID(0, c.rec, c.body, c.fs)
			call.RequestID = c.id
			call.NoRequestID = c.id == "" && !reqid.Named(call.content)
			if c.body == nil && c.size > 0 {
				call = call.light()
				call.Size, call.doc = c.size, c.doc
			}
			f.s.add(call, c.off)
			batch[i] = fed{} // let the GC have what the store lets go
		}
		if stopping {
			return
		}
	}
}

// Offer queues a call for the store and reports whether it was taken.
// offset is where rec starts in the store's file (see newFileStore), -1
// when it is not there; body is the request body (nil: decode it from the
// record) and requestID the body's requestId as the caller read it (""
// for none): listen has both at hand. None of them may be written to
// afterwards.
func (f *Feed) Offer(rec *capture.Record, offset int64, body []byte, requestID string, fs []validate.Finding) bool {
	it := fed{rec: rec, off: offset, body: body, id: requestID, fs: fs}
	n := int64(len(body) + len(rec.Body))
	f.mu.Lock()
	if len(f.q) >= feedQueue {
		f.mu.Unlock()
		f.s.dropped.Add(1)
		return false
	}
	if f.held+n > feedQueueBytes && n > callOverhead {
		f.mu.Unlock()
		doc, _ := documentOf(rec, body)
		it.doc = f.s.links.docHash(eventOf(rec), doc)
		it.size = len(body)
		if body == nil {
			it.size = len(rec.Body)
		}
		it.body, it.rec = nil, (&call{Record: rec}).light().Record
		f.mu.Lock()
		n = 0
	}
	f.held += n
	f.q = append(f.q, it)
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

func eventOf(rec *capture.Record) string {
	e, _ := rec.Event()
	return e
}

// Close stores every queued call and stops the feed. Offer must not be
// called after it.
func (f *Feed) Close() {
	close(f.stop)
	<-f.done
}
