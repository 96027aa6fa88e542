package testnet

import "sync"

// CallLog is the bookkeeping of a test receiver that tells of its calls by
// their bodies: a gate a call waits on, how many times each was read, and
// its first reading and the client's taking of its close, each a channel
// closed once. OneCallServer keeps one; so may a receiver of a test's own
// that answers in its own order (over TLS, say).
type CallLog struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
	read  map[string]chan struct{}
	taken map[string]chan struct{}
	got   map[string]int
}

// NewCallLog returns a CallLog that has seen no call.
func NewCallLog() *CallLog {
	return &CallLog{gates: map[string]chan struct{}{}, read: map[string]chan struct{}{}, taken: map[string]chan struct{}{}, got: map[string]int{}}
}

// Gate makes the call with body wait for the returned channel's close
// (as the receiver's Arrived returns it to it).
func (l *CallLog) Gate(body string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := make(chan struct{})
	l.gates[body] = g
	return g
}

// Arrived counts a reading of the call with body and returns its gate
// (nil: none) and whether it was the first reading, which WaitRead then
// sees.
func (l *CallLog) Arrived(body string) (gate chan struct{}, first bool) {
	_, read, _ := l.chans(body)
	l.mu.Lock()
	l.got[body]++
	first = l.got[body] == 1
	gate = l.gates[body]
	l.mu.Unlock()
	if first {
		close(read)
	}
	return gate, first
}

// Taken says the client took the close of the call with body's first
// reading (WaitTaken then returns); call it once, for that reading.
func (l *CallLog) Taken(body string) {
	_, _, taken := l.chans(body)
	close(taken)
}

// WaitRead returns once the call with body was read.
func (l *CallLog) WaitRead(body string) {
	_, read, _ := l.chans(body)
	<-read
}

// WaitTaken returns once the receiver said the client took the close
// of the call with body (Taken).
func (l *CallLog) WaitTaken(body string) {
	_, _, taken := l.chans(body)
	<-taken
}

// Calls is how many times the call with body was read.
func (l *CallLog) Calls(body string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.got[body]
}

// chans are the gate, read and taken channels of the call with body.
func (l *CallLog) chans(body string) (gate, read, taken chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.read[body] == nil {
		l.read[body], l.taken[body] = make(chan struct{}), make(chan struct{})
	}
	return l.gates[body], l.read[body], l.taken[body]
}
