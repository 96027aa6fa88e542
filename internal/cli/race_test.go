//go:build race

package cli

// raceEnabled: the race detector makes sync.Pool drop items at random.
const raceEnabled = true
