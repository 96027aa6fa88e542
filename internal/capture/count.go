package capture

import (
	"context"
	"io"
	"os"
)

// countRecords counts the records of a capture stream without decoding
// them: its complete lines that are one whole JSON object as far as its
// brackets and strings go. A blank line, a line that is no object (an
// editor's stray text) and a torn line (a record cut short: a crash, then
// a listen restarted on the file left it mid-file) are no records, as
// readers skip them; a torn line ends inside a string or an unclosed
// object, whatever byte it was cut after. It reads in large blocks,
// checking ctx between them: a capture may be gigabytes.
func countRecords(ctx context.Context, r io.Reader) (int64, error) {
	buf := make([]byte, 1<<20)
	var n int64
	var line lineShape
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		for b := buf[:k]; len(b) > 0; {
			i := line.scan(b)
			if i == len(b) {
				break // the line goes on in the next block
			}
			if line.whole() {
				n++
			}
			line = lineShape{}
			b = b[i+1:]
		}
		if err == io.EOF {
			return n, nil // an unended last line is torn, or no record yet
		}
		if err != nil {
			return n, err
		}
	}
}

// lineShape follows a line's JSON structure across the blocks it spans:
// enough to tell a whole object from a torn one without holding the line.
type lineShape struct {
	begun   bool // a byte other than white space came
	no      bool // the line is no single object: it cannot be a record
	inStr   bool
	escaped bool // the byte before, in a string, was an escape's backslash
	depth   int  // objects and arrays open
}

// inString marks the bytes that end a run of a string's plain bytes, the
// bulk of a record (its body): the run is skipped a byte at a time with no
// other test, which kept the count near the speed of the disk.
var inString = [256]bool{'"': true, '\\': true, '\n': true}

// scan follows b up to the end of the line, and returns where its newline
// is, len(b) when it has none.
func (l *lineShape) scan(b []byte) int {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if l.inStr {
			if l.escaped {
				l.escaped = false
				if c != '\n' {
					continue
				}
			}
			for !inString[c] {
				if i++; i == len(b) {
					return i
				}
				c = b[i]
			}
			switch c {
			case '\\':
				l.escaped = true
				continue
			case '"':
				l.inStr = false
				continue
			}
		}
		switch {
		case c == '\n':
			return i
		case l.no, c == ' ', c == '\t', c == '\r':
		case !l.begun:
			l.begun, l.no, l.depth = true, c != '{', 1
		case l.depth == 0:
			l.no = true // bytes after the object
		case c == '"':
			l.inStr = true
		case c == '{' || c == '[':
			l.depth++
		case c == '}' || c == ']':
			l.depth--
		}
	}
	return len(b)
}

// whole says whether the line ended is one whole object.
func (l *lineShape) whole() bool { return l.begun && !l.no && !l.inStr && l.depth == 0 }

// heldRecords counts the records of an existing, non-empty capture file,
// the one a run is about to append to; ok is false for a new or empty one
// (or one that cannot be read: OpenFile says what is wrong).
func heldRecords(ctx context.Context, path string) (n int64, ok bool) {
	if !regularFile(path) {
		return 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return 0, false
	}
	n, err = countRecords(ctx, f)
	return n, err == nil
}
