package capture

import (
	"bufio"
	"bytes"
	"io"
	"os"
)

// HoldsPayloads reports whether a file given as a capture holds plain
// payloads (as generate writes them) rather than capture records: its first
// non-blank line opens a JSON value and is not a record. It reads through
// ReadAt, so the file is still at its start; a pipe is not looked at.
func HoldsPayloads(f *os.File) (bool, error) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	br := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	for {
		line, err := br.ReadSlice('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			return !IsRecord(trimmed) && (trimmed[0] == '{' || trimmed[0] == '['), nil
		}
		switch {
		case err == io.EOF:
			return false, nil
		case err != nil && err != bufio.ErrBufferFull:
			return false, err
		}
	}
}
