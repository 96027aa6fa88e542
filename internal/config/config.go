// Package config fills command-line flags from a YAML config file and from
// environment values: it finds and reads the file, checks its keys against
// a command tree, and sets pflag flags from its values, naming a bad key or
// value by file and line. The command layer decides precedence and which
// flags to fill; this package knows flags, YAML and files only.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/whsim/whsim/internal/suggest"
)

// maxSize bounds a config file, which is read whole.
const maxSize = 1 << 20

// Section describes a command for the config file's keys: the flags a key
// under its section may set, and its subcommands. A bare key (top level)
// may set the flag of any command in the tree.
type Section struct {
	Name  string
	Flags []string
	// NoSection: the command's name is no key (it is hidden, or reads no
	// config); its flags still count as bare keys, unless NoConfig.
	NoSection bool
	// NoConfig: the command reads no config at all (ready, version), so a
	// key naming a flag only it has would set nothing: it is unknown, and
	// its error says why.
	NoConfig bool
	Subs     []Section
}

// Find finds the config file: explicit, which must exist, when it is not
// "", else name in the working directory, else app/name in the user config
// directory. It returns "" when there is none.
func Find(explicit, app, name string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("config file: %w", err)
		}
		return explicit, nil
	}
	candidates := []string{name}
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, app, name))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("config file: %w", err)
		}
	}
	return "", nil
}

// File is a config file whose keys were checked against a command tree.
type File struct {
	Name string
	keys map[string]*yaml.Node // "seed", "send.url": the value's node
}

// Load reads the config file name and checks its keys against root: a key
// is a flag of some command, bare, or of the command whose section it is
// under. Any other key is an error naming its line, with a suggestion; all
// such keys are named at once, with the File of the keys that are right:
// a run the error stops may still read from it where to say so (its
// --junit). YAML merge keys (<<: *defaults) count as
// the keys they merge, and top-level x- keys as none (mergedPairs).
func Load(name string, root Section) (*File, error) {
	b, err := read(name)
	if err != nil {
		return nil, err
	}
	keys, err := parse(name, b, root)
	if keys == nil {
		return nil, err
	}
	return &File{Name: name, keys: keys}, err
}

// read reads a config file: a regular file (not a device or a FIFO, which
// could be endless or never answer) of at most maxSize bytes.
func read(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("config file %s: not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		// The file's name leads the message already.
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("config file %s: %w", name, err)
	}
	if len(b) > maxSize {
		return nil, fmt.Errorf("config file %s: larger than %d KiB", name, maxSize>>10)
	}
	return b, nil
}

// parse flattens the YAML document b into its keys, checked against root;
// with an error about keys, the keys that are right (nil: no keys could
// be read).
func parse(name string, b []byte, root Section) (map[string]*yaml.Node, error) {
	// yaml's errors read "yaml: line 3: ...", the line not always the
	// editor's (yamlProblem); whsim's read "config file F, line 3: ...".
	yamlErr := func(err error) error {
		return fmt.Errorf("config file %s%s", name, yamlProblem(strings.TrimPrefix(err.Error(), "yaml: "), b))
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, yamlErr(err)
	}
	// The keys of a second document (after ---) would set nothing. One
	// that does not parse is refused alike (yaml numbers its lines from
	// the wrong place); an empty one (a --- at the end) holds no keys.
	for {
		var more yaml.Node
		err := dec.Decode(&more)
		if err == io.EOF {
			break
		}
		if err == nil && (len(more.Content) == 0 || more.Content[0].Tag == "!!null") {
			continue
		}
		// Text after the first value that starts no document (it has no
		// ---) is no second document: a TOML or INI file's [section], or
		// keys after a {...} mapping or a ... line.
		if err != nil && strings.Contains(err.Error(), "did not find expected <document start>") {
			if len(doc.Content) > 0 && doc.Content[0].Kind != yaml.MappingNode {
				top := doc.Content[0]
				return nil, fmt.Errorf("config file %s%s: want keys and values (seed: 42)", name, onLine(b, top.Line))
			}
			return nil, fmt.Errorf("config file %s: more after the end of its first YAML value (a {...} mapping or a ... line ends it): write each key as key: value, on a line of its own", name)
		}
		where := ""
		if err == nil {
			where = onLine(b, more.Content[0].Line)
		}
		return nil, fmt.Errorf("config file %s%s: a second YAML document (after ---): whsim reads only the first; put its keys there", name, where)
	}
	keys := map[string]*yaml.Node{}
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty, or only comments
		return keys, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config file %s%s: want keys and values (seed: 42)", name, onLine(b, top.Line))
	}
	var every []string
	unread := map[string]string{} // a flag of a command that reads no config: the command
	var visit func(s Section, path string)
	visit = func(s Section, path string) {
		for _, f := range s.Flags {
			if !s.NoConfig {
				every = append(every, f)
			} else if _, ok := unread[f]; !ok {
				unread[f] = path
			}
		}
		for _, sub := range s.Subs {
			visit(sub, strings.TrimSpace(path+" "+sub.Name))
		}
	}
	visit(root, "")
	root.Flags = every
	hint := func(key string, known []string) string {
		if cmd, ok := unread[key]; ok && !slices.Contains(every, key) {
			return fmt.Sprintf(" (%s reads no config: give --%s on its command line)", cmd, key)
		}
		return suggest.Hint(key, known)
	}

	errs := duplicates(name, "", top)
	told := map[*yaml.Node]bool{}
	var walk func(s Section, prefix string, m *yaml.Node)
	walk = func(s Section, prefix string, m *yaml.Node) {
		var subs []string
		var sections []Section
		for _, sub := range s.Subs {
			if !sub.NoSection {
				subs = append(subs, sub.Name)
				sections = append(sections, sub)
			}
		}
		under := ""
		if prefix != "" {
			under = " under " + strings.TrimSuffix(prefix, ".")
		}
		pairs, perrs := mergedPairs(name, under, m, told)
		errs = append(errs, perrs...)
		for _, p := range pairs {
			k, v := p.key, p.value
			if prefix == "" && strings.HasPrefix(k.Value, holderPrefix) {
				continue // what anchors name, for << and * elsewhere
			}
			if j := slices.Index(subs, k.Value); j >= 0 {
				sub := sections[j]
				if v.Kind != yaml.MappingNode {
					example := "..."
					if len(sub.Flags) > 0 {
						example = sub.Flags[0]
					}
					errs = append(errs, fmt.Errorf("%s in %s, line %d: want keys of the %s command under it, such as %s: {%s: ...}",
						k.Value, name, k.Line, k.Value, k.Value, example))
					continue
				}
				walk(sub, prefix+k.Value+".", v)
				continue
			}
			if slices.Contains(s.Flags, k.Value) {
				keys[prefix+k.Value] = v
				continue
			}
			where, why := "", hint(k.Value, append(slices.Clip(s.Flags), subs...))
			if prefix != "" {
				where = " under " + strings.TrimSuffix(prefix, ".")
				// A flag of its subcommands (export's url): say where it goes.
				var of, cmds []string
				for _, sub := range sections {
					if slices.Contains(sub.Flags, k.Value) {
						of = append(of, sub.Name)
						cmds = append(cmds, strings.ReplaceAll(prefix, ".", " ")+sub.Name)
					}
				}
				if len(of) > 0 {
					why = fmt.Sprintf(" (a key of %s: %s: {%s: {%s: ...}})", strings.Join(cmds, " and "),
						strings.TrimSuffix(prefix, "."), of[0], k.Value)
				}
			}
			if p.mergedAt > 0 {
				why += fmt.Sprintf(" (merged by << on line %d)", p.mergedAt)
			} else if prefix == "" && p.value.Anchor != "" && why == "" {
				why = fmt.Sprintf(" (to hold values for << or *%s only, name it %s%s: keys starting %s are read as no flag)", p.value.Anchor, holderPrefix, k.Value, holderPrefix)
			}
			errs = append(errs, fmt.Errorf("unknown key %q%s in %s, line %d%s", k.Value, where, name, k.Line, why))
		}
	}
	walk(root, "", top)
	return keys, errors.Join(errs...)
}

// holderPrefix starts a top-level key that is no flag: it holds values
// that anchors name, for a merge key (<<: *defaults) or an alias
// elsewhere, as Docker Compose's x- keys do.
const holderPrefix = "x-"

// pair is one key of a mapping and its value, alias resolved; mergedAt,
// when not 0, is the line of the merge key (<<) that brought it in.
type pair struct {
	key, value *yaml.Node
	mergedAt   int
}

// mergedPairs is the keys of the mapping m as YAML's merge keys make them
// (<<: *defaults, or <<: [*a, *b]): m's own keys, then each merged
// mapping's keys m does not give, the earlier mapping winning. A key given
// twice in one mapping is duplicates' to refuse; the first is kept here.
// A << whose value is no mapping is refused, once (told: the merge keys
// already refused, a mapping merged in more than one place). under says
// where m is (" under send"), for the messages.
func mergedPairs(name, under string, m *yaml.Node, told map[*yaml.Node]bool) ([]pair, []error) {
	var pairs []pair
	var errs []error
	seen := map[string]bool{}
	refuse := func(k *yaml.Node, mergedAt int, why string) {
		if told[k] {
			return
		}
		told[k] = true
		if mergedAt > 0 { // a << of a mapping merged in: it stands elsewhere
			errs = append(errs, fmt.Errorf("<< in %s, line %d: %s", name, k.Line, why))
			return
		}
		errs = append(errs, fmt.Errorf("<<%s in %s, line %d: %s", under, name, k.Line, why))
	}
	// A mapping merged twice adds nothing the first did not: each is
	// merged once, or a file of nested merges, each listing the one
	// before many times, took time exponential in its depth.
	merged := map[*yaml.Node]bool{}
	var merge func(m *yaml.Node, mergedAt int, inside []*yaml.Node)
	merge = func(m *yaml.Node, mergedAt int, inside []*yaml.Node) {
		merged[m] = true
		var merges [][2]*yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			if k.Tag == mergeTag {
				merges = append(merges, [2]*yaml.Node{k, v})
				continue
			}
			if !seen[k.Value] {
				seen[k.Value] = true
				pairs = append(pairs, pair{key: k, value: v, mergedAt: mergedAt})
			}
		}
		for _, kv := range merges {
			k, v := kv[0], kv[1]
			from := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				from = v.Content
			}
			at := mergedAt
			if at == 0 {
				at = k.Line
			}
			for _, f := range from {
				if f.Kind == yaml.AliasNode {
					f = f.Alias
				}
				switch {
				case f.Kind != yaml.MappingNode:
					refuse(k, mergedAt, "want a mapping to merge, or a list of them (<<: *defaults, <<: [*a, *b])")
				case slices.Contains(inside, f):
					refuse(k, mergedAt, "merges a mapping into itself")
				case merged[f]:
				default:
					merge(f, at, append(slices.Clip(inside), f))
				}
			}
		}
	}
	merge(m, 0, []*yaml.Node{m})
	return pairs, errs
}

// mergeTag is the tag yaml gives a plain << key: a merge key.
const mergeTag = "!!merge"

// duplicates refuses each key given twice in one mapping of the document
// under n, naming the mapping by its keys from the top (path): YAML
// forbids it, and yaml.v3 reads a node tree without a word, so the second
// silently won (a section given twice merged). Every mapping is checked
// where it is written, once, whether a section, a value merged
// elsewhere (<<) or held for an alias; a second << too (several merge as
// one list).
func duplicates(name, path string, n *yaml.Node) []error {
	var errs []error
	switch n.Kind {
	case yaml.SequenceNode:
		for _, it := range n.Content {
			errs = append(errs, duplicates(name, path, it)...)
		}
	case yaml.MappingNode:
		under := ""
		if path != "" {
			under = " under " + path
		}
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if line, ok := first[k.Value]; ok {
				hint := ""
				if k.Tag == mergeTag {
					hint = " (merge several mappings with one: <<: [*a, *b])"
				}
				errs = append(errs, fmt.Errorf("key %q%s in %s, line %d: given already on line %d; give it once%s", k.Value, under, name, k.Line, line, hint))
				continue
			}
			first[k.Value] = k.Line
			errs = append(errs, duplicates(name, strings.TrimPrefix(path+"."+k.Value, "."), v)...)
		}
	}
	return errs
}

// Has says whether the file holds key; a nil File holds none.
func (f *File) Has(key string) bool {
	if f == nil {
		return false
	}
	_, ok := f.keys[key]
	return ok
}

// Where names the line of the file that holds key, for a message:
// "config file whsim.yaml, line 3".
func (f *File) Where(key string) string {
	if n := f.keys[key]; n != nil {
		return fmt.Sprintf("config file %s, line %d", f.Name, n.Line)
	}
	return "config file " + f.Name
}

// Line is the line of the file that holds key, 0 for none.
func (f *File) Line(key string) int {
	if n := f.keys[key]; n != nil {
		return n.Line
	}
	return 0
}

// Set sets fl from the file's value of key, a scalar or, for a repeatable
// flag, a list of scalars. A bad value is named by file, line and key.
func (f *File) Set(fl *pflag.Flag, key string) error {
	n := f.keys[key]
	if n == nil {
		return fmt.Errorf("config file %s: no key %s", f.Name, key)
	}
	if err := setNode(fl, n); err != nil {
		return fmt.Errorf("config file %s, line %d: %s: %w", f.Name, n.Line, key, err)
	}
	return nil
}
