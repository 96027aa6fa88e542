package validate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/whsim/whsim/internal/input"
)

// The lines of an input that can be read at offsets (a regular file) are
// checked without a reader goroutine: the input is cut into ranges of
// bt.bytes, and each worker takes the next range, reads it itself
// (ReadAt, a pread on a file) and checks its lines; the caller's goroutine
// reports the ranges' results in input order, as checkParallel does. On
// two CPUs that is two busy goroutines where the pipeline had three.
//
// A range holds the lines that start in it, each ended by its "\n": a
// line that starts before the range's end is read on past it, and the
// next range begins after it. Lines are cut at every "\n" byte, as
// input.Reader cuts them (one inside a string is not JSON, and ends the
// line there too). A line numbers from 1 in its range; the caller, which
// has counted the lines of the ranges before, makes the number the
// input's.
//
// What a range cannot say for certain is left to input.Reader, reading on
// from the first line a range did not take (checkRest): a line with no
// "\n" before the size the input had when it was opened (the last line,
// torn or unended, or one the file grew after), a line longer than a
// range (a payload too large among them, whose skipping the reader
// bounds), and a range that does not begin where the one before it ended
// (the file changed while read). So the results are the streaming
// reader's, line for line, whatever the file does.

// rangeSlot is one range in flight: read and checked by a worker, then
// reported by the caller, then free for the range slots ranges later.
type rangeSlot struct {
	free chan struct{} // a token: the slot may be taken
	done chan struct{} // closed when the range is checked
	k    int           // the range's index
	buf  []byte
	res  []result
	// start is where the range's first line starts; -1 when no line
	// starts in it (a line from a range before runs through it).
	start int64
	// end is where the lines it checked end: the next line's start.
	end int64
	// lines counts its lines, white space ones too.
	lines int
	// stop says the line at end was not taken (see above): the caller
	// reads on from there.
	stop bool
	err  error // reading failed (or ctx ended) before the range's lines
	held int64 // of the resultBudget: res's capacity
}

// resultBudget bounds the bytes of the ranges' result lists, as
// checkParallel's inFlight does: a range of 512 KiB of two-byte lines has
// 175,000 results. A slot keeps a list the size of a range of records
// (a few hundred) from range to range, counted all the while; a larger
// one is made for its range and dropped once reported. A range waits for
// the budget unless it is the one to be reported next, which never waits:
// so a range larger than the budget goes alone, and the caller never
// waits for a range that waits for it.
type resultBudget struct {
	mu          sync.Mutex
	freed       *sync.Cond
	held, limit int64
	next        int  // the range to be reported next
	stopped     bool // nothing more is reported: no range waits
}

func newResultBudget(limit int64) *resultBudget {
	b := &resultBudget{limit: limit}
	b.freed = sync.NewCond(&b.mu)
	return b
}

// take waits until n bytes fit in the budget, or range k is next, and
// holds them.
func (b *resultBudget) take(k int, n int64) {
	b.mu.Lock()
	for k != b.next && !b.stopped && b.held+n > b.limit {
		b.freed.Wait()
	}
	b.held += n
	b.mu.Unlock()
}

// give gives back n bytes; next is the range to be reported next.
func (b *resultBudget) give(n int64, next int) {
	b.mu.Lock()
	b.held -= n
	b.next = max(b.next, next)
	b.mu.Unlock()
	b.freed.Broadcast()
}

// stop lets every range waiting go: nothing more is reported.
func (b *resultBudget) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.freed.Broadcast()
}

// rangeTail is the room a range's buffer has past the range for its last
// line, which runs on past it: a capture record is a few KiB.
const rangeTail = 16 << 10

// readerAtSize is an input that can be read at offsets: an open regular
// file (sized by its Stat: see offsets), or bytes in memory (bytes.Reader,
// strings.Reader).
type readerAtSize interface {
	io.ReaderAt
	Size() int64
}

// checkRanges checks the lines of ra from offset off (line number line),
// up to size, in ranges on bt.workers goroutines, and the rest from where
// the ranges stopped with input.Reader (rd's Rest). fn gets the results in
// input order.
func (v *Validator) checkRanges(ctx context.Context, cancel context.CancelFunc, rd *input.Reader, ra io.ReaderAt, size int64, line int, off int64, kind input.Kind, in source, bt batching, fn func(*result) error) error {
	rangeBytes := int64(max(bt.bytes, 1))
	n := 0
	if size > off {
		n = int((size - off + rangeBytes - 1) / rangeBytes)
	}
	// Two ranges a worker: one being checked, one read or reported.
	slots := make([]rangeSlot, min(2*bt.workers, max(n, 1)))
	// The slots' buffers come from one slab: a block of huge pages holds
	// a two-worker run's four (see bufferSlab).
	var bufs bufferSlab
	for i := range slots {
		if n > 0 {
			slots[i].buf = bufs.get(int(min(rangeBytes, size-off)) + 1 + rangeTail)
		}
		slots[i].free = make(chan struct{}, 1)
		slots[i].free <- struct{}{}
		slots[i].done = make(chan struct{})
	}
	budget := newResultBudget(bt.inFlight)
	var next atomic.Int64
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range min(bt.workers, n) {
		wg.Go(func() {
			for {
				select {
				case <-quit:
					return
				default:
				}
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				s := &slots[k%len(slots)]
				select {
				case <-s.free:
				case <-quit:
					return
				}
				s.k = k
				a := off + int64(k)*rangeBytes
				v.checkRange(ctx, rd, ra, s, budget, a, min(a+rangeBytes, size), k == 0, kind, in.event)
				close(s.done)
			}
		})
	}
	stop := func() {
		close(quit)
		budget.stop()
		wg.Wait()
	}
	// p is where the next range must begin, line the number of the line
	// there.
	p := off
	for k := range n {
		s := &slots[k%len(slots)]
		<-s.done
		b := min(off+int64(k+1)*rangeBytes, size)
		if s.err != nil {
			stop()
			return s.err
		}
		if s.start < 0 && p >= b || s.start == p {
			for i := range s.res {
				s.res[i].Line += line - 1
				if err := fn(&s.res[i]); err != nil {
					stop()
					return err
				}
			}
			if s.start >= 0 {
				p, line = s.end, line+s.lines
			}
		} else {
			// The file changed while read: its ranges no longer join.
			s.stop = true
		}
		if s.stop {
			stop()
			return v.checkRest(ctx, cancel, rd, ra, line, p, kind, in, bt, fn)
		}
		if s.held > bt.inFlight/int64(len(slots)) {
			// Made for a range of short lines: not kept.
			s.res = nil
			budget.give(s.held, k+1)
			s.held = 0
		} else {
			budget.give(0, k+1)
		}
		s.done = make(chan struct{})
		s.free <- struct{}{}
	}
	stop()
	// The input may have grown since it was opened.
	return v.checkRest(ctx, cancel, rd, ra, line, p, kind, in, bt, fn)
}

// checkRest checks the lines of ra from offset off (line number line) to
// its end as input.Reader reads them.
func (v *Validator) checkRest(ctx context.Context, cancel context.CancelFunc, rd *input.Reader, ra io.ReaderAt, line int, off int64, kind input.Kind, in source, bt batching, fn func(*result) error) error {
	var one [1]byte
	if n, err := ra.ReadAt(one[:], off); n == 0 && errors.Is(err, io.EOF) {
		cancel()
		return nil // nothing past the ranges: the common case
	}
	rest := rd.Rest(io.NewSectionReader(ra, off, math.MaxInt64-off), line, off)
	return v.checkParallel(ctx, cancel, rest, kind, in, bt, fn)
}

// checkRange reads and checks the lines that start in [a, b) into s; first
// says a is where the lines begin (the first range), else the first starts
// after the first "\n" from a-1 on.
func (v *Validator) checkRange(ctx context.Context, rd *input.Reader, ra io.ReaderAt, s *rangeSlot, budget *resultBudget, a, b int64, first bool, kind input.Kind, event string) {
	s.res, s.start, s.end, s.lines, s.stop, s.err = s.res[:0], -1, 0, 0, false, nil
	if err := ctx.Err(); err != nil {
		s.err = err
		return
	}
	// from is where buf starts in the input: a byte early, so that a line
	// starting at a is seen to start there.
	from := a
	if !first {
		from--
	}
	want := int(b - from)
	if cap(s.buf) < want {
		s.buf = make([]byte, 0, want+rangeTail)
	}
	buf, err := readFull(ra, s.buf[:want], from)
	if err != nil {
		s.err = err
		return
	}
	i := 0 // where the first line starts in buf
	if !first {
		j := bytes.IndexByte(buf, '\n')
		if j < 0 || from+int64(j)+1 >= b {
			return // no line starts in the range
		}
		i = j + 1
	}
	s.start = from + int64(i)
	// The range's last line: ended in it, or read on until it ends.
	e := len(buf)
	if len(buf) < want || buf[len(buf)-1] != '\n' {
		last := i // where the line that runs past b starts
		if j := bytes.LastIndexByte(buf[i:], '\n'); j >= 0 {
			last = i + j + 1
		}
		atEnd := len(buf) < want
		// A record's rest is some kilobytes: read that much, then twice
		// as much each time, so that the ranges read the input about
		// once, and a line of a range's length in a few reads.
		step := 4 << 10
		for e = -1; e < 0; step *= 2 {
			if atEnd || int64(len(buf)-last) > b-a {
				// The input ends within the line (or sooner than it did
				// when opened), or the line is longer than a range: the
				// reader reads on from its start.
				e, s.stop = last, true
				break
			}
			have := len(buf)
			if cap(buf)-have < step {
				buf = append(buf[:cap(buf)], make([]byte, step)...)[:have]
			}
			more, err := readFull(ra, buf[have:have+step], from+int64(have))
			if err != nil {
				s.err = err
				return
			}
			atEnd = len(more) < step
			buf = buf[:have+len(more)]
			if j := bytes.IndexByte(more, '\n'); j >= 0 {
				e = have + j + 1
			}
		}
		s.buf = buf[:0] // grown, perhaps
	}
	s.end = from + int64(e)
	chunk := buf[i:e]
	s.lines = bytes.Count(chunk, []byte("\n"))
	if s.lines == 0 {
		return
	}
	if cap(s.res) < s.lines {
		// A larger list, in place of the slot's (see resultBudget).
		s.res = nil
		budget.give(s.held, 0)
		s.held = int64(s.lines) * int64(unsafe.Sizeof(result{}))
		budget.take(s.k, s.held)
		s.res = make([]result, 0, s.lines)
	}
	rd.Items(input.Chunk{Bytes: chunk, Line: 1, Offset: s.start, Lines: s.lines}, func(it *input.Item) {
		s.res = append(s.res, result{})
		if r := &s.res[len(s.res)-1]; it.Long {
			v.judgeLong(rd, kind, it, r)
		} else {
			v.judge(kind, it, event, r)
		}
	})
}

// readFull reads len(buf) bytes of ra at off, fewer only at its end.
func readFull(ra io.ReaderAt, buf []byte, off int64) ([]byte, error) {
	n, err := ra.ReadAt(buf, off)
	if errors.Is(err, io.EOF) || n == len(buf) {
		err = nil
	}
	return buf[:n], err
}
