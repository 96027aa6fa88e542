//go:build race

package term

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
