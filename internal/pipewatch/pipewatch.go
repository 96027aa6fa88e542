// Package pipewatch tells a program that the reader of the pipe it writes
// to has gone away, before it writes again: a program that writes only
// when something happens (listen, a line per call) would otherwise learn
// it only at its next line, which may never come.
package pipewatch
