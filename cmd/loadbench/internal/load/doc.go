// Package load is loadbench's client side: the clients that pay
// concurrently, flat out or on a fixed schedule (Drive), a phase's
// measurements (Result), a client's light keep-alive connection to
// Hearth's API (Conn) and a reader of its event stream (ReadStream).
package load

// PaymentMsat is what every measured payment moves.
const PaymentMsat = 1000
