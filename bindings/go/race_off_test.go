//go:build !race

package sketches

const raceEnabled = false
