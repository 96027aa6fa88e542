package payload

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/spec"
)

// Request says which payloads to build, as the command line gives it: event
// names (spec.AllEvents for every event), a shape name, a seed (0: random),
// the --set and --unset overrides and the requestIds' nonce.
type Request struct {
	Events []string
	Shape  string
	Seed   uint64
	Sets   []string
	Unsets []string
	// Nonce, when not 0, gives the requestIds a run of their own over the
	// seed's content (Source.WithNonce); 0 keeps the seed's ids.
	Nonce uint64
	// PathEvents, when set, are the events the --set paths are held
	// against instead of Events: a scenario's.
	PathEvents []string
}

// Plan is a checked Request: its events and shape, and the source of their
// payloads, generated around Now.
type Plan struct {
	Events    []spec.Event
	Shape     spec.Shape
	Overrides []Override
	source    *source
	Now       time.Time
	// Warnings are one line each about a --set the spec does not know
	// for an event (a new last key), for the command to print.
	Warnings []string

	// NextBody encodes each payload into scratch, reused, and copies it
	// into arena, a block many bodies share: a body of its own, grown
	// from nothing, made several times its size in fresh heap, and
	// fresh heap (page faults, zeroing) was most of what building send's
	// pool of bodies cost.
	scratch, arena []byte
}

// arenaBlock is the size of the blocks NextBody's bodies share after the
// first: tens of bodies each, and what is left of the last costs little.
const arenaBlock = 64 << 10

// Plan checks r and returns its payload source, generating around
// Around(r.Seed, now). Its errors name the flag at fault (--event, --shape,
// --set, --unset).
func (r Request) Plan(now time.Time) (*Plan, error) {
	events, err := spec.ParseEvents(r.Events)
	if err != nil {
		return nil, fmt.Errorf("--event: %w", err)
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("--event: none given (valid: %s, %s)", strings.Join(spec.EventNames(), ", "), spec.AllEvents)
	}
	shape, err := spec.ParseShape(r.Shape)
	if err != nil {
		return nil, fmt.Errorf("--shape: %w", err)
	}
	ovs, err := r.overrides()
	if err != nil {
		return nil, err
	}
	held := events
	if len(r.PathEvents) > 0 {
		if held, err = spec.ParseEvents(r.PathEvents); err != nil {
			return nil, err
		}
	}
	warnings, err := checkPaths(held, shape, ovs)
	if err != nil {
		return nil, err
	}
	now = Around(r.Seed, now)
	return &Plan{Events: events, Shape: shape, Overrides: ovs, source: NewSource(r.Seed, now, shape, ovs).WithNonce(r.Nonce), Now: now, Warnings: warnings}, nil
}

// overrides parses the sets, then the unsets: the order they apply in.
func (r Request) overrides() ([]Override, error) {
	var ovs []Override
	for _, s := range r.Sets {
		ov, err := parseSet(s)
		if err != nil {
			return nil, err
		}
		ovs = append(ovs, ov)
	}
	for _, s := range r.Unsets {
		ov, err := parseUnset(s)
		if err != nil {
			return nil, err
		}
		ovs = append(ovs, ov)
	}
	return ovs, nil
}

// Next builds the next payload of e. When an override does not fit it, the
// error wraps the *PathError with the event and shape.
func (p *Plan) Next(e spec.Event) (*Obj, error) {
	doc, err := p.source.Next(e)
	if pe := (*PathError)(nil); errors.As(err, &pe) {
		// Which payload: a path the first payloads have may miss in a
		// later one (an array index), and then the run stops there.
		return nil, fmt.Errorf("%s %s payload %d: %w%s", e.Name, p.Shape, p.source.n[e.Name], err, pe.Hint())
	}
	return doc, err
}

// NextBody is Next's payload encoded, as a delivery sends it. Bodies
// share blocks of memory (arena): one is capped at its end and never
// written after it is returned.
func (p *Plan) NextBody(e spec.Event) ([]byte, error) {
	doc, err := p.Next(e)
	if err != nil {
		return nil, err
	}
	p.scratch = appendJSON(p.scratch[:0], doc)
	n := len(p.scratch)
	if cap(p.arena)-len(p.arena) < n {
		// The first body gets a block its size: a plan that makes one
		// (whsimtest's Call) keeps no more.
		size := arenaBlock
		if p.arena == nil {
			size = 0
		}
		p.arena = make([]byte, 0, max(size, n))
	}
	start := len(p.arena)
	p.arena = append(p.arena, p.scratch...)
	// Capped, so that appending to one body never writes over the next.
	return p.arena[start : start+n : start+n], nil
}
