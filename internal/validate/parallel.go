package validate

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sync/semaphore"

	"github.com/whsim/whsim/internal/input"
)

// The payloads of an NDJSON input, a capture log or an array are checked
// on every CPU: one goroutine reads them into batches, workers check the
// batches, and the caller's goroutine hands the results to fn in input
// order, as the one-by-one loop did. A payload is judged alone (judge),
// so only the order of the results needs keeping.

// batching says how an input is spread over the CPUs; tests make it
// small, or one worker.
type batching struct {
	// workers check batches; 0 is GOMAXPROCS, 1 the one-by-one loop.
	workers int
	// items and bytes end a batch: enough payloads that handing one over
	// costs nothing beside checking them. A chunk of lines read straight
	// into a batch (NDJSON, captures) is bytes long, whatever its count.
	items, bytes int
	// inFlight bounds the bytes of the batches read and not yet reported.
	// A batch larger than it (one payload of more than inFlight) waits
	// until it is the only one, so memory stays bounded by the largest
	// payload, a few times over, whatever the input's size.
	inFlight int64
	// stream reads an input that could be read at offsets (checkRanges)
	// as a pipe is read: how the two are compared.
	stream bool
}

// defaultBatching is every CPU, in batches of 512 payloads or 512 KiB:
// a batch of capture records is about 2 ms of work. Four batches in
// flight keep two workers busy; more only cost fresh buffers (8 MiB in
// flight: some 280 more faults on a 32 MB capture than 2 MiB, when each
// buffer took 128; they now come from bufferSlab's huge pages, whose
// block holds the four to six buffers 2 MiB in flight makes).
func defaultBatching() batching {
	return batching{items: 512, bytes: 512 << 10, inFlight: 2 << 20}
}

// batch is a run of consecutive payloads of one input: items copied
// into buf, or the lines of a chunk read straight into buf (NDJSON and
// capture records), which the worker splits.
type batch struct {
	buf   []byte // the payloads' bytes, one after another
	items []batchItem
	chunk input.Chunk // its lines when items is empty
	res   []result
	// err ended the input after these payloads (never io.EOF).
	err  error
	held int64 // of inFlight
	done chan struct{}
}

// batchItem is one payload of a batch: its Body spans buf[start:end].
type batchItem struct {
	it         input.Item
	start, end int
	judged     bool // its result is set already (a payload too large)
}

// batchingOf is how in is spread: its own batching, else every CPU.
func batchingOf(in source, kind input.Kind) batching {
	b := defaultBatching()
	if in.batching != nil {
		b = *in.batching
	}
	if b.workers == 0 {
		b.workers = runtime.GOMAXPROCS(0)
	}
	if kind == input.Document {
		b.workers = 1 // one payload
	}
	return b
}

// checkParallel is checkInput's loop on every CPU. cancel ends the read
// when fn fails, and is called before it returns.
func (v *Validator) checkParallel(ctx context.Context, cancel context.CancelFunc, rd *input.Reader, kind input.Kind, in source, bt batching, fn func(*result) error) error {
	workers := bt.workers
	order := make(chan *batch, 2*workers) // the batches in input order
	work := make(chan *batch, workers)
	budget := semaphore.NewWeighted(bt.inFlight)
	// free holds reported batches for the reader to fill again, results
	// and all: fresh buffers and result lists cost page faults (a 32 MB
	// capture's 16,000 results took some 280) and the copies of their
	// growth, fresh item lists garbage. fn is done with a result when it
	// returns (CheckFiles says so to its caller), so a batch is reused
	// only once all its results went to fn.
	free := make(chan *batch, cap(order)+workers+2)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				v.judgeBatch(rd, b, kind, in.event)
				close(b.done)
			}
		})
	}
	wg.Go(func() {
		defer close(work)
		defer close(order)
		v.readBatches(ctx, rd, kind, bt, budget, free, order, work)
	})
	defer wg.Wait()
	// stop ends the read and waits out the batches still coming.
	stop := func() {
		cancel()
		for b := range order {
			<-b.done
		}
	}
	for b := range order {
		<-b.done
		for i := range b.res {
			if err := fn(&b.res[i]); err != nil {
				stop()
				return err
			}
		}
		budget.Release(b.held)
		// b is the reader's again once on free.
		readErr := b.err
		if cap(b.buf) <= 2*bt.bytes { // not one grown for a large payload
			b.buf, b.items, b.res, b.chunk = b.buf[:0], b.items[:0], b.res[:0], input.Chunk{}
			select {
			case free <- b:
			default:
			}
		}
		if readErr != nil {
			stop()
			return readErr
		}
	}
	// The read stopped without an error of its own: ctx ended while a
	// batch waited to be sent.
	err := ctx.Err()
	cancel()
	return err
}

// readBatches reads the input into batches, sending each to order and to
// work, until the input ends, fails or ctx is done.
func (v *Validator) readBatches(ctx context.Context, rd *input.Reader, kind input.Kind, bt batching, budget *semaphore.Weighted, free <-chan *batch, order, work chan<- *batch) {
	var b *batch
	// A chunk is one read of the input (see input.ReadChunk).
	chunkBytes := max(bt.bytes, 1)
	// An array's elements are copied in until one passes bt.bytes.
	bufBytes := chunkBytes
	if kind == input.Array {
		bufBytes = bt.bytes + bt.bytes/2
	}
	send := func() bool {
		// A chunk's results are made by its worker: they count, so that
		// a chunk of many short lines holds no more than its bytes would.
		held := min(int64(len(b.buf))+int64(b.chunk.Lines)*int64(unsafe.Sizeof(result{})), bt.inFlight)
		if err := budget.Acquire(ctx, held); err != nil {
			return false
		}
		b.held = held
		for i := range b.items {
			if x := &b.items[i]; !x.judged {
				x.it.Body = b.buf[x.start:x.end:x.end]
			}
		}
		select {
		case order <- b:
		case <-ctx.Done():
			budget.Release(held)
			return false
		}
		// The batch is on order: it must be judged, or the caller waits
		// for it forever. work has room for every batch a worker does not
		// hold, so this never blocks for long.
		work <- b
		b = nil
		return true
	}
	var bufs bufferSlab
	for {
		if b == nil {
			select {
			case b = <-free:
				b.done, b.err, b.held = make(chan struct{}), nil, 0
			default:
				b = &batch{buf: bufs.get(bufBytes)}
				b.done = make(chan struct{})
			}
		}
		if rd.Chunked() {
			if len(b.items) > 0 {
				// Lines read before: they go first, on their own.
				if !send() {
					return
				}
				continue
			}
			if cap(b.buf) < chunkBytes {
				b.buf = bufs.get(chunkBytes)
			}
			c, err := rd.ReadChunk(b.buf[:0:chunkBytes])
			switch {
			case len(c.Bytes) == 0 && err == nil:
				// A line longer than a chunk: Next takes it, below.
			case err != nil: // the lines before it, if any, then the end
				b.chunk, b.buf = c, c.Bytes
				if !errors.Is(err, io.EOF) {
					b.err = err
				}
				if len(c.Bytes) > 0 || b.err != nil {
					send()
				}
				return
			default:
				b.chunk, b.buf = c, c.Bytes
				if !send() {
					return
				}
				continue
			}
		}
		it, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.err = err
			}
			if len(b.items) > 0 || b.err != nil {
				send()
			}
			return
		}
		if b.items == nil {
			b.items = make([]batchItem, 0, bt.items)
		}
		if b.res == nil {
			b.res = make([]result, 0, bt.items)
		}
		x := batchItem{it: *it}
		if it.Long {
			x.judged = true
			b.res = append(b.res, result{})
			v.judgeLong(rd, kind, it, &b.res[len(b.res)-1])
		} else {
			x.start = len(b.buf)
			b.buf = append(b.buf, it.Body...)
			x.end = len(b.buf)
			x.it.Body = nil
			b.res = append(b.res, result{})
		}
		b.items = append(b.items, x)
		// A batch goes when it is full, or when reading on may wait: a
		// line typed or piped in (listen's capture followed live) is
		// reported as soon as it is read, as the one-by-one loop did.
		if (len(b.items) >= bt.items || len(b.buf) >= bt.bytes || !rd.Buffered()) && !send() {
			return
		}
	}
}

// bufferSlab hands out the buffers of one input's batches: pieces of
// blocks the kernel is asked to back with huge pages (adviseHuge). A fresh
// buffer's pages took the largest share of validate's page faults on a
// large input, and a fault cost 13 to 27 µs on the 2-CPU VM this was
// measured on: 128 of them for each 512 KiB buffer, where a huge page
// takes one (docs/performance.md, validate38).
type bufferSlab struct {
	rest []byte // what is left of the current block
}

const (
	hugePage = 2 << 20
	// slabBlock holds the four to six 512 KiB buffers a large input takes
	// with 2 MiB in flight (three held, the others being filled or on
	// their way back; counted on a 32 MB capture), so that it makes one
	// block: each is an allocation half as large again, which counts
	// towards the GC's goal, and a second block set off a second cycle.
	slabBlock = 2 * hugePage
)

// get returns an empty buffer of capacity n: the next piece of the current
// block, or of a new one. A buffer larger than a block is made on its own,
// and so is one smaller than an eighth of a huge page: batches are made
// that small only for a small file (checkInput fits them to its size),
// whose few pages cost less than a huge page zeroed by the kernel.
func (s *bufferSlab) get(n int) []byte {
	if n > slabBlock || n < hugePage/8 {
		return make([]byte, 0, n)
	}
	if len(s.rest) < n {
		s.rest = hugeBlock()
	}
	b := s.rest[:0:n] // its capacity ends where the next piece begins
	s.rest = s.rest[n:]
	return b
}

// hugeBlock is slabBlock bytes aligned to hugePage, as a huge page must be,
// and advised as huge pages. It is found in an allocation a huge page
// larger; the rest of that is never written, so never given memory.
func hugeBlock() []byte {
	raw := make([]byte, slabBlock+hugePage)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int(-p & (hugePage - 1))
	b := raw[off : off+slabBlock : off+slabBlock]
	adviseHuge(b)
	return b
}

// judgeBatch checks the payloads of a batch.
func (v *Validator) judgeBatch(rd *input.Reader, b *batch, kind input.Kind, event string) {
	if len(b.chunk.Bytes) > 0 {
		if cap(b.res) < b.chunk.Lines {
			b.res = make([]result, 0, b.chunk.Lines)
		}
		b.res = b.res[:0]
		rd.Items(b.chunk, func(it *input.Item) {
			b.res = append(b.res, result{})
			if r := &b.res[len(b.res)-1]; it.Long {
				v.judgeLong(rd, kind, it, r)
			} else {
				v.judge(kind, it, event, r)
			}
		})
		return
	}
	for i := range b.items {
		if x := &b.items[i]; !x.judged {
			v.judge(kind, &x.it, event, &b.res[i])
		}
	}
}
