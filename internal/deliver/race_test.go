//go:build race

package deliver

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
