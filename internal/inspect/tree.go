package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// node is one value of a JSON body, members in the order they were sent
// and numbers as written, addressed by the path findings use.
type node struct {
	Key      string  `json:"key,omitempty"` // the member name, in an object
	Index    *int    `json:"index,omitempty"`
	Path     string  `json:"path"`
	Kind     string  `json:"kind"`            // object, array, string, number, bool, null
	Value    string  `json:"value,omitempty"` // a scalar: a string's text, a number as written, true, false
	Children []*node `json:"children,omitempty"`
	// Findings are indexes into the detail's findings shown at this node.
	Findings []int `json:"findings,omitempty"`
	// Time is a millisecond timestamp's date and time in Asia/Shanghai,
	// for the spec's millisecond fields (createTime, 业务日期, 到期日).
	Time string `json:"time,omitempty"`
}

// millisFields are the names of the spec's millisecond-timestamp fields.
func millisFields() map[string]bool {
	out := map[string]bool{}
	var walk func([]spec.Field)
	walk = func(fs []spec.Field) {
		for _, f := range fs {
			if f.Format == spec.UnixMillis {
				out[f.Name] = true
			}
			walk(f.Fields)
		}
	}
	for _, k := range []spec.Kind{spec.Invoice, spec.Receipt} {
		for _, sh := range spec.Shapes() {
			walk(spec.Data(k, sh).Fields)
		}
	}
	return out
}

// shanghai is the ERP's time zone. China has kept UTC+8 without summer
// time since 1991: the fixed zone stands in where there is no tz database.
func shanghai() *time.Location {
	if loc, err := time.LoadLocation("Asia/Shanghai"); err == nil {
		return loc
	}
	return time.FixedZone("CST", 8*3600)
}

// millisTime is how a millisecond timestamp is shown: its date and time in
// Asia/Shanghai; "" for what is not a whole, plausible count.
func millisTime(raw string, loc *time.Location) string {
	ms, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || ms < 0 || ms > 1<<53 {
		return ""
	}
	return time.UnixMilli(ms).In(loc).Format("2006-01-02 15:04:05.000") + " Asia/Shanghai"
}

// dates sets Time on the number nodes named as the spec's millisecond
// fields.
func (h *handler) dates(n *node) {
	if n == nil {
		return
	}
	if n.Kind == "number" && h.millis[n.Key] {
		n.Time = millisTime(n.Value, h.loc)
	}
	for _, c := range n.Children {
		h.dates(c)
	}
}

// maxNodes bounds a tree: beyond it the page shows the raw body only.
const maxNodes = 50000

// maxTreeDepth bounds a tree's nesting. Every node carries its whole
// path, so a body nested n deep costs n² bytes of paths: 5,000 levels of
// "[" (10 KB) made a 38 MB detail, and at 9,990 the encoder's own depth
// limit cut the detail off after its 200. No document of the spec nears it.
const maxTreeDepth = 256

// maxPathBytes bounds the bytes of all a tree's paths: a long key is
// repeated in the path of every value under it (a 10,000-byte key over
// 20,000 items, a 50 KB body, made a 201 MB detail). The spec's documents
// need a few hundred KB at 50,000 values.
const maxPathBytes = 8 << 20

var (
	errTooBig  = errors.New("too many values for a tree")
	errTooDeep = errors.New("nested too deep for a tree")
)

// treeBudget is what a tree being read has left: values and path bytes.
type treeBudget struct {
	nodes, pathBytes int
}

// parseTree returns the tree of a JSON body, nil when it is not one JSON
// value or is too large to show as a tree.
func parseTree(body []byte) *node {
	n, _ := treeOf(body)
	return n
}

// Why a body has no tree (detail's noTree).
const (
	noTreeTooLarge = "too-large" // more than maxNodes values, or maxPathBytes of paths
	noTreeTooDeep  = "too-deep"  // nested deeper than maxTreeDepth
	noTreeNotJSON  = "not-json"
)

// treeOf returns the tree of a JSON body, or nil and why not: too large
// (more than maxNodes values or maxPathBytes of paths), too deep (past
// maxTreeDepth) or not JSON ("" for an empty body). The page said "Not
// JSON" of a valid body too large for a tree.
func treeOf(body []byte) (*node, string) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	left := treeBudget{nodes: maxNodes, pathBytes: maxPathBytes}
	n, err := readNode(dec, "", 0, &left)
	switch {
	case errors.Is(err, errTooBig):
		return nil, noTreeTooLarge
	case errors.Is(err, errTooDeep):
		// The rest was not read: what is not JSON after all says so, as
		// the validator does of nesting past the decoder's 10,000 levels.
		if !json.Valid(body) {
			return nil, noTreeNotJSON
		}
		return nil, noTreeTooDeep
	}
	if err != nil {
		return nil, noTreeNotJSON
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, noTreeNotJSON // trailing data
	}
	return n, ""
}

func readNode(dec *json.Decoder, path string, depth int, left *treeBudget) (*node, error) {
	if left.nodes--; left.nodes < 0 {
		return nil, errTooBig
	}
	if left.pathBytes -= len(path); left.pathBytes < 0 {
		return nil, errTooBig
	}
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{Path: path}
	switch v := t.(type) {
	case json.Delim:
		// Checked before the decoder's own limit (10,000 levels), which
		// would call a valid body nested deeper not JSON.
		if depth == maxTreeDepth {
			return nil, errTooDeep
		}
		if v == '{' {
			n.Kind = "object"
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				c, err := readNode(dec, validate.JoinKey(path, key), depth+1, left)
				if err != nil {
					return nil, err
				}
				c.Key = key
				n.Children = append(n.Children, c)
			}
		} else {
			n.Kind = "array"
			for i := 0; dec.More(); i++ {
				c, err := readNode(dec, validate.JoinIndex(path, i), depth+1, left)
				if err != nil {
					return nil, err
				}
				c.Index = &i
				n.Children = append(n.Children, c)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.Kind, n.Value = "string", v
	case json.Number:
		n.Kind, n.Value = "number", v.String()
	case bool:
		n.Kind = "bool"
		n.Value = "false"
		if v {
			n.Value = "true"
		}
	case nil:
		n.Kind = "null"
	}
	return n, nil
}

// attach marks each finding on the node at its path or, for a path the body
// lacks (a missing field), on its nearest ancestor that is there. It
// returns where each finding was put.
func attach(root *node, fs []validate.Finding) []string {
	at := make([]string, len(fs))
	if root == nil {
		return at
	}
	byPath := map[string]*node{}
	var walk func(*node)
	walk = func(n *node) {
		if _, dup := byPath[n.Path]; !dup {
			byPath[n.Path] = n
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	for i, f := range fs {
		p := f.Path
		for {
			if n, ok := byPath[p]; ok {
				n.Findings = append(n.Findings, i)
				at[i] = p
				break
			}
			if p == "" {
				break
			}
			p = parent(p)
		}
	}
	return at
}

// parent drops a path's last step: .key, ["key"] or [i].
func parent(p string) string {
	if strings.HasSuffix(p, "]") {
		if strings.HasSuffix(p, `"]`) {
			if i := strings.LastIndex(p, `["`); i >= 0 {
				return p[:i]
			}
		}
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}
