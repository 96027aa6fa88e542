//go:build !race

package sendout

const raceEnabled = false
