// Package machine reads what loadbench's figures need of the machine they
// run on, from /proc: the processor time spent by this process, by a
// local PostgreSQL server and by any other process, how busy the
// machine's processors are, its load average and its processor's name.
// Where /proc cannot be read the readings are zero, and the figures that
// rest on them say so ("-", "?") rather than fail the run.
package machine
