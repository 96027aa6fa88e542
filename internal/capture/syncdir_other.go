//go:build !unix

package capture

// syncDir does nothing here: a directory cannot be opened for an fsync
// on this system, which keeps a new file's name with the file's own flush.
func syncDir(string) error { return nil }
