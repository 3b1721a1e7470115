// Package archtest holds the architecture test: it reads the import graph
// of the server, the SDK and the example plugins with go list and fails
// on an import that bends the layering (see rules.go and
// /work/shared/design/architecture.md's "Layout").
package archtest
