//go:build !linux

package backup

// inBackground runs f: only Linux sets the priority of one thread.
func inBackground(f func() error) error { return f() }
