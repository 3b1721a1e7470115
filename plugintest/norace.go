//go:build !race

package plugintest

// raceScale multiplies the plugins' default CPU share and burst (see
// race.go).
const raceScale = 1
