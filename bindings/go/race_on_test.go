//go:build race

package sketches

const raceEnabled = true
