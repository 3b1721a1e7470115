//go:build !linux

package main

// lowerPriority leaves the priority as it is: niceness per thread is
// Linux's (priority_linux.go).
func lowerPriority() {}
