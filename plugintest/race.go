//go:build race

package plugintest

// raceScale multiplies the plugins' default CPU share and burst: the race
// detector makes the host code that runs on plugin threads (starting an
// instance, answering host calls), which the share counts, many times
// slower.
const raceScale = 10
