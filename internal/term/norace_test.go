//go:build !race

package term

const raceEnabled = false
