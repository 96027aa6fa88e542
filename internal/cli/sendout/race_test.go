//go:build race

package sendout

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
