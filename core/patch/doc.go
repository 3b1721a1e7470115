// Package patch reads the bodies of PATCH routes, where a field left out
// keeps its value and a field sent as null removes it: Field tells the
// three apart, which a pointer alone cannot.
package patch
