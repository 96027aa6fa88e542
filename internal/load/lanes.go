package load

import (
	"net/http"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/spec"
)

// poolSize is how many different bodies are built per event before a run:
// enough that a receiver sees varied data, few enough to build in
// milliseconds. Deliveries cycle through them with fresh requestIds and
// document numbers of their own (Template.DocOffs).
const poolSize = 256

// Pool is how many bodies to build per event for count deliveries of it;
// count 0 (until a duration ends) builds PoolSize.
func Pool(count int) int {
	if count > 0 && count < poolSize {
		return count
	}
	return poolSize
}

// Lanes is what a run sends, in plain values, for Build to make its
// templates of before the run starts: generated bodies of Events (Next),
// documents' lives (Lives: a scenario) or a file's Payloads (File).
type Lanes struct {
	Header http.Header
	// Rounds is how many of each body the run sends (0: until a duration
	// ends); it sizes the pool of bodies built (Pool).
	Rounds int
	// Set are the paths the user gave values (--set): a document number
	// under one is the user's and sent as it is; the others get each
	// document's serial (DocPaths).
	Set [][]string
	// UserIDs says the bodies' requestIds are the user's (set or
	// removed): sent as they are, never replaced per delivery.
	UserIDs bool

	// Events are the generated payloads' events, Pool(Rounds) bodies of
	// each from Next; with File, the events each payload is sent under
	// (nil: the one its businessType names).
	Events []spec.Event
	Next   func(spec.Event) ([]byte, error)
	// Lives, when set, is a scenario: n documents' lives in one lane, each
	// a group of deliveries sent in order (LifeLanes).
	Lives func(n int) ([][]Step, error)
	// File sends Payloads byte for byte (FileLanes): the file's requestIds
	// and numbers are its own, so Rounds, Set and UserIDs do not apply.
	File     bool
	Payloads []Payload
}

// Build makes the lanes' templates. An error of Next or Lives is returned
// as it is; a file payload whose event cannot be told is a *PayloadError.
func (l Lanes) Build() ([][][]attempt.Template, error) {
	if l.File {
		return FileLanes(l.Payloads, l.Events, l.Header)
	}
	docs := NewDocPaths(l.Set)
	if l.Lives != nil {
		lives, err := numberedLives(l.Lives, Pool(l.Rounds), docs)
		if err != nil {
			return nil, err
		}
		return LifeLanes(lives, l.Header, !l.UserIDs, docs), nil
	}
	return EventLanes(l.Events, Pool(l.Rounds), l.Header, !l.UserIDs, docs, l.Next)
}

// EventLanes builds the templates of a run of generated payloads before it
// starts, so that the hot path only copies a body and writes a fresh
// requestId into it: a lane per event of n bodies drawn from next. With
// fresh false the bodies' requestIds are the user's, sent as they are.
// The document numbers at docs' paths get each document's serial.
//
// deliver takes bodies, not the generator's documents: the validator reads
// capture records, which turn into deliveries, and must not depend on the
// generator.
func EventLanes(events []spec.Event, n int, header http.Header, fresh bool, docs DocPaths, next func(spec.Event) ([]byte, error)) ([][][]attempt.Template, error) {
	lanes := make([][][]attempt.Template, len(events))
	for i, e := range events {
		// A group of one template each, cut from one slice: the pool is
		// built in a fresh heap, where every allocation costs page faults.
		groups, tmpls := make([][]attempt.Template, n), make([]attempt.Template, n)
		for j := range n {
			// A body without a number to make anew (a sample-shape
			// invoice's empty code, its only number) would be the same
			// document each time the pool comes round, and no receiver
			// could tell it from another such: another is drawn.
			for try := 0; ; try++ {
				body, err := next(e)
				if err != nil {
					return nil, err
				}
				tmpls[j] = newTemplate(e.Name, header, body, fresh, docs)
				if try == maxRedraws || docs.numbered(e.Name, &tmpls[j]) {
					break
				}
			}
			groups[j] = tmpls[j : j+1 : j+1]
		}
		lanes[i] = groups
	}
	return lanes, nil
}

// maxRedraws bounds the draws made for a body with a number to make anew:
// a generator that never makes one still ends.
const maxRedraws = 100

// numberedLives is n documents' lives from lives, only those whose first
// body has numbers to make anew (DocPaths.numbered) while lives gives
// any. A scenario's generator starts over on every call (its seed), so
// more lives are asked for at once rather than again.
func numberedLives(lives func(n int) ([][]Step, error), n int, docs DocPaths) ([][]Step, error) {
	for ask := n; ; ask += ask/4 + 1 {
		all, err := lives(ask)
		if err != nil {
			return nil, err
		}
		kept := make([][]Step, 0, n)
		for _, life := range all {
			if len(life) > 0 {
				first := newTemplate(life[0].Event, nil, life[0].Body, false, docs)
				if !docs.numbered(life[0].Event, &first) {
					continue
				}
			}
			kept = append(kept, life)
		}
		if len(kept) >= n {
			return kept[:n], nil
		}
		if ask >= n*maxRedraws || len(all) < ask {
			return all[:min(n, len(all))], nil
		}
	}
}

// Step is one delivery of a document's life: its event and body.
type Step struct {
	Event string
	Body  []byte
}

// LifeLanes is one lane of documents' lives (a scenario), each a group of
// deliveries sent in order, all with the same document serial.
func LifeLanes(lives [][]Step, header http.Header, fresh bool, docs DocPaths) [][][]attempt.Template {
	lane := make([][]attempt.Template, len(lives))
	for i, life := range lives {
		for _, step := range life {
			lane[i] = append(lane[i], newTemplate(step.Event, header, step.Body, fresh, docs))
		}
	}
	return [][][]attempt.Template{lane}
}

// PerRound is how many deliveries one round of a feed over lanes makes:
// the first group of every lane (a scenario's groups are one document's
// events, all as long).
func PerRound(lanes [][][]attempt.Template) int {
	n := 0
	for _, l := range lanes {
		n += len(l[0])
	}
	return n
}
