// Package deliver tells a delivery run (packages attempt and load make it):
// the console with its progress bar, and the text and JSON of each result
// and of the summary.
package deliver
