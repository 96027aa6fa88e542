package payload

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/spec"
)

// Output says how a run of generated payloads is written: one payload as
// indented JSON, several as NDJSON (one a line) or as one indented JSON
// array, or into a directory, one indented file per payload. A .ndjson
// file is NDJSON, one payload or many.
type Output struct {
	// Format is "json", "ndjson" or "auto": json for one payload or a .json
	// file, ndjson for several or a .ndjson file.
	Format string
	// Path, when set, names a file to write when it ends in .json or
	// .ndjson (and is not an existing directory), else a directory.
	Path string
}

// File is the file Path names, "" when it names a directory or nothing.
func (o Output) File() string {
	switch strings.ToLower(filepath.Ext(o.Path)) {
	case ".json", ".ndjson":
		if fi, err := os.Stat(o.Path); err == nil && fi.IsDir() {
			return ""
		}
		return o.Path
	}
	return ""
}

// Dir is the directory Path names, "" when it names a file or nothing.
func (o Output) Dir() string {
	if o.File() != "" {
		return ""
	}
	return o.Path
}

// format resolves "auto" for a run of one payload or many: a .ndjson
// file is NDJSON even for one payload (indented, it is a file no NDJSON
// reader takes), a .json file JSON.
func (o Output) format(many bool) string {
	switch ext := filepath.Ext(o.File()); {
	case o.Format != "auto":
		return o.Format
	case strings.EqualFold(ext, ".ndjson"):
		return "ndjson"
	case strings.EqualFold(ext, ".json"), !many:
		return "json"
	}
	return "ndjson"
}

// Check refuses what o cannot write as asked: -o json into a .ndjson
// file, indented JSON where a reader expects one payload a line.
func (o Output) Check() error {
	if o.Format == "json" && strings.EqualFold(filepath.Ext(o.File()), ".ndjson") {
		return fmt.Errorf("--out %s: an .ndjson file holds one payload a line, and -o json writes indented JSON, which NDJSON readers (whsim validate among them) refuse: name the file .json, or leave -o out", o.Path)
	}
	return nil
}

// WriteAll writes count payloads of each event, drawn from next, to w; with
// a directory, it writes one file per payload (EVENT-requestId.json, the
// directory made already; see fileNames) and w gets each file's name on a
// line. It returns
// how many payloads it wrote. An error from next ends the run, and what was
// written before it is flushed to w.
func (o Output) WriteAll(ctx context.Context, w io.Writer, events []spec.Event, count int, next func(spec.Event) (*Obj, error)) (int, error) {
	many := count > 1 || len(events) > 1
	dir, format := o.Dir(), o.format(many)
	array := format == "json" && many && dir == ""
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	if array {
		bw.WriteString("[\n")
	}
	n := 0
	names := newFileNames()
	for _, e := range events {
		for range count {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			doc, err := next(e)
			if err != nil {
				return n, err
			}
			n++
			// bw's errors stick: the last write of a payload fails when any
			// write before it did. A writer that failed (a full disk) ends
			// the run, not after every payload was made for nobody.
			var werr error
			switch {
			case dir != "":
				name := filepath.Join(dir, names.take(e.Name+"-"+fileSafe(idText(doc)))+".json")
				// Whole or not at all: a disk that filled left a
				// payload cut short in the directory, for a later read
				// of it to take as one.
				if err := atomicfile.Write(name, 0o644, func(w io.Writer) error {
					_, err := w.Write(MarshalIndent(doc))
					return err
				}); err != nil {
					return n, err
				}
				_, werr = fmt.Fprintln(bw, name)
			case format == "ndjson":
				bw.Write(Marshal(doc))
				werr = bw.WriteByte('\n')
			case !many:
				_, werr = bw.Write(MarshalIndent(doc))
			default:
				if n > 1 {
					bw.WriteString(",\n")
				}
				_, werr = bw.Write(bytes.TrimSuffix(MarshalIndent(doc), []byte("\n")))
			}
			if werr != nil {
				return n, werr
			}
		}
	}
	if array {
		bw.WriteString("\n]\n")
	}
	return n, bw.Flush()
}

// idText is the payload's requestId as text (a --set value is JSON), or
// "no-requestId" when it has none (--unset requestId, or null).
func idText(doc *Obj) string {
	id, ok := doc.Get(spec.FieldRequestID)
	text := fmt.Sprint(id)
	if raw, isRaw := id.(json.RawMessage); isRaw {
		text = string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		}
	}
	if !ok || id == nil || text == "" {
		return "no-requestId"
	}
	return text
}

// fileNames hands out one name per payload of a run written to a
// directory: payloads may share a requestId (a --set gave it to them all)
// or have none, and a second EVENT-abc would overwrite the first, so it
// becomes EVENT-abc-2, then -3. It keeps a hash of each name it gave, not
// the name (a few bytes a file, where --count may run to millions); two
// names of one hash only make the second take a suffix it did not need.
type fileNames struct {
	seed maphash.Seed
	used map[uint64]bool
	next map[uint64]int // the suffix to try next for a name already given
}

func newFileNames() *fileNames {
	return &fileNames{seed: maphash.MakeSeed(), used: map[uint64]bool{}, next: map[uint64]int{}}
}

// take returns base, or base-N for the least N from 2 on, whichever this
// run has not given yet.
func (f *fileNames) take(base string) string {
	if f.claim(base) {
		return base
	}
	h := maphash.String(f.seed, base)
	for n := max(f.next[h], 2); ; n++ {
		if name := base + "-" + strconv.Itoa(n); f.claim(name) {
			f.next[h] = n + 1
			return name
		}
	}
}

func (f *fileNames) claim(name string) bool {
	h := maphash.String(f.seed, name)
	if f.used[h] {
		return false
	}
	f.used[h] = true
	return true
}

// fileSafe keeps a requestId a file name inside the directory: one set
// with --set may hold separators or "..", which become '_', as do the
// characters Windows refuses in a name (a colon would name a file's
// stream there: "urn:uuid:…"), so a directory of fixtures checks out on
// every system. An id longer than maxIDInName bytes (a --set of a long
// one) is cut there, at a character's start, and given the start of its
// SHA-256: a file system's names end at 255 bytes, and two ids that share
// their start stay two names.
func fileSafe(id string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '.' || r < ' ' || strings.ContainsRune(`:*?"<>|`, r) {
			return '_'
		}
		return r
	}, id)
	if len(safe) <= maxIDInName {
		return safe
	}
	cut := maxIDInName
	for cut > 0 && !utf8.RuneStart(safe[cut]) {
		cut--
	}
	sum := sha256.Sum256([]byte(id))
	return safe[:cut] + "-" + hex.EncodeToString(sum[:4])
}

// maxIDInName is the most bytes of a requestId a file name holds: with
// the event's name, a digest, a -N and .json, well within 255.
const maxIDInName = 100
