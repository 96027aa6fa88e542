// Package deliver runs loads of webhook deliveries (package attempt makes
// each one) and renders their results: the console, the text and JSON of
// a run.
package deliver
