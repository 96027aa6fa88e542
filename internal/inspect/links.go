package inspect

import (
	"hash/maphash"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/recent"
	"github.com/whsim/whsim/internal/spec"
)

// docPaths are where a document's number is in each kind's data, derived
// from the spec: its document-number fields outside arrays, then its
// invoice-number fields (an invoice's code may be empty), both shapes.
func docPaths() map[spec.Kind][][]string {
	out := map[spec.Kind][][]string{}
	for _, k := range []spec.Kind{spec.Invoice, spec.Receipt} {
		for _, id := range []spec.Identity{spec.DocumentNumber, spec.InvoiceNumber} {
			for _, sh := range spec.Shapes() {
				for _, f := range spec.Identities(spec.Data(k, sh)) {
					if f.Field.Identity != id || slices.Contains(f.Path, spec.Each) {
						continue
					}
					p := append([]string{spec.FieldData}, f.Path...)
					if !slices.ContainsFunc(out[k], func(q []string) bool { return slices.Equal(p, q) }) {
						out[k] = append(out[k], p)
					}
				}
			}
		}
	}
	return out
}

// docKey is the document a body is about, as shown: its kind and number
// ("" when the event is unknown or the body has no number).
func docKey(paths map[spec.Kind][][]string, event string, body []byte) string {
	kind, sp, ok := docSpan(paths, event, body)
	if !ok {
		return ""
	}
	v := string(body[sp.Start:sp.End])
	if sp.Kind == jsonlex.String {
		v = jsonlex.StringAt(body, sp)
	}
	return string(kind) + " " + v
}

// docSpan is where a body's document number is, and the document's kind.
func docSpan(paths map[spec.Kind][][]string, event string, body []byte) (spec.Kind, jsonlex.Span, bool) {
	e, ok := spec.Lookup(event)
	if !ok {
		return "", jsonlex.Span{}, false
	}
	for _, p := range paths[e.Kind] {
		sp, ok := memberAt(body, p)
		// An empty string is no number (an invoice's code may be empty).
		if ok && sp.End-sp.Start <= 200 && (sp.Kind == jsonlex.Number || sp.End-sp.Start > 2) {
			return e.Kind, sp, true
		}
	}
	return "", jsonlex.Span{}, false
}

// memberAt is where the string or number at path in b is. It descends
// into the members on the path without reading the rest of them: a call's
// body is lexed only up to its number (listen's feed does this for every
// call).
func memberAt(b []byte, path []string) (sp jsonlex.Span, ok bool) {
	var l jsonlex.Lexer
	l.Reset(b)
	l.Run(func() {
		l.Begin()
		for depth, name := range path {
			if l.Peek() != jsonlex.Object || !l.Enter() {
				return
			}
			for first := true; ; first = false {
				k := l.Key(first)
				kind := l.Peek()
				if string(l.KeyBytes(k)) == name {
					if depth < len(path)-1 {
						break // into it
					}
					start := l.Pos()
					l.Skip(kind)
					sp = jsonlex.Span{Kind: kind, Start: start, End: l.Pos()}
					ok = kind == jsonlex.String || kind == jsonlex.Number
					return
				}
				l.Skip(kind)
				if !l.More('}') {
					return
				}
			}
		}
	})
	return sp, ok
}

// maxLinked bounds the requestIds and documents a store remembers for
// links: a capture of millions of calls costs a few MiB, and re-deliveries
// and a document's later events come soon after.
const maxLinked = 1 << 17

// linker gives each call, in the order they are added, its links (the
// call before with the same requestId, and with the same document) and
// the flags listen prints under it.
type linker struct {
	seed  maphash.Seed
	paths map[spec.Kind][][]string
	reqs  *recent.Map[uint64, uint64] // a requestId's hash -> the newest call with it
	docs  *recent.Map[uint64, uint64] // a document's hash -> the newest call about it
	judge *receiver.Forwarded
	// others holds, by call, the flags listen printed under it that
	// judge another call (receiver.Flag.Of: a re-delivery refused
	// before its accepted original was answered), which a call's flag
	// bits cannot say: a call read back from the file takes them here.
	// Written under the store's lock (link), read by back readers.
	othersMu sync.Mutex
	others   *recent.Map[uint64, []receiver.Flag]
}

func newLinker() *linker {
	return &linker{
		seed: maphash.MakeSeed(), paths: docPaths(), judge: receiver.NewForwarded(),
		reqs: recent.New[uint64, uint64](maxLinked), docs: recent.New[uint64, uint64](maxLinked),
		others: recent.New[uint64, []receiver.Flag](maxLinked),
	}
}

func (l *linker) hash(s string) uint64 { return maphash.String(l.seed, s) }

// docHash is the hash of the document a body is about, 0 for none: the
// number's bytes as sent, and its kind. It allocates nothing.
func (l *linker) docHash(event string, body []byte) uint64 {
	kind, sp, ok := docSpan(l.paths, event, body)
	if !ok {
		return 0
	}
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(string(kind))
	h.WriteByte(0)
	h.Write(body[sp.Start:sp.End])
	return h.Sum64() | 1 // never 0
}

// link fills c's links and flags; c.ID is set, c.doc read.
func (l *linker) link(c *call) {
	if c.RequestID != "" {
		c.RepeatOf, _ = l.reqs.Put(l.hash(c.RequestID), c.ID)
	}
	if c.doc != 0 {
		c.PrevDoc, _ = l.docs.Put(c.doc, c.ID)
	}
	if f := c.Record.Forward; f != nil && f.Error == "" {
		// A flag of another call (a refused re-delivery the file holds
		// before the call accepted that came first) is kept with the
		// call listen printed it under, "of call #N", as listen did: the
		// page dropped it, and showed it nowhere (found by fw46).
		c.Flags = l.judge.Judge(c.RequestID, c.Verdict == "invalid", f.Status, c.Record.Time, c.ID)
		if i := slices.IndexFunc(c.Flags, func(fl receiver.Flag) bool { return fl.Of != 0 }); i >= 0 {
			l.othersMu.Lock()
			l.others.Put(c.ID, slices.Clone(c.Flags[i:]))
			l.othersMu.Unlock()
		}
	}
}

// othersOf is the flags of other calls listen printed under call id
// (link), nil for none or when too long ago to be kept.
func (l *linker) othersOf(id uint64) []receiver.Flag {
	l.othersMu.Lock()
	defer l.othersMu.Unlock()
	fs, _ := l.others.Get(id)
	return fs
}

// newest is the newest call with the key's hash (0: none).
func newest(m *recent.Map[uint64, uint64], key uint64) uint64 {
	id, _ := m.Get(key)
	return id
}

// Flag bits, to keep a call's flags in 1 byte of the file index.
const (
	flagMalformed uint8 = 1 << iota
	flagDuplicate
)

// flagBits are the bits of a call's own flags (those of other calls it
// was printed with are kept apart: linker.others).
func flagBits(fs []receiver.Flag) uint8 {
	var b uint8
	for _, f := range fs {
		if f.Of != 0 {
			continue
		}
		switch f.Check {
		case receiver.RejectsMalformed:
			b |= flagMalformed
		case receiver.Duplicates:
			b |= flagDuplicate
		}
	}
	return b
}

// flagsOf gives back the flags a call read from the file was given when it
// was added: the judge, told the requestId was accepted before when it
// had said so, words them the same way.
func flagsOf(bits uint8, c *call) []receiver.Flag {
	f := c.Record.Forward
	if bits == 0 || f == nil {
		return nil
	}
	j := receiver.NewForwarded()
	if bits&flagDuplicate != 0 {
		j.Judge(c.RequestID, false, http.StatusOK, time.Time{}, 0) // accepted before
	}
	return j.Judge(c.RequestID, c.Verdict == "invalid", f.Status, c.Record.Time, c.ID)
}
