package receiver

import (
	"net/url"
	"strings"
)

// pathMatch is listen's --path as net/http's ServeMux matches a pattern:
// segment by segment, each unescaped. So a call to "/%41" reaches "/A",
// but one to "/a%2Fb" (one segment, "a/b") does not reach "/a/b": to a
// receiver that routes on the path as sent it is another resource, and
// ServeMux, Express and Spring (which refuses an encoded slash) all tell
// the two apart.
type pathMatch struct {
	segs []string // --path's segments, each unescaped; nil: any path
	// plain is segs joined by '/', and slash says whether a segment
	// holds a '/' (--path "/a%2Fb"): a call whose path net/http kept no
	// RawPath of, as nearly every call, is matched by comparing its
	// decoded path with plain, without an allocation.
	plain string
	slash bool
}

func newPathMatch(path string) pathMatch {
	if path == "" {
		return pathMatch{}
	}
	m := pathMatch{segs: strings.Split(path, "/")}
	for i, s := range m.segs {
		if d, err := url.PathUnescape(s); err == nil {
			m.segs[i] = d // else taken as written: no call's segment unescapes to it
		}
		m.slash = m.slash || strings.Contains(m.segs[i], "/")
	}
	m.plain = strings.Join(m.segs, "/")
	return m
}

// on says whether a call to path (decoded), sent as rawPath (net/http's
// RawPath: "" when the sender escaped it as Go does), is on the path.
func (m pathMatch) on(path, rawPath string) bool {
	if m.segs == nil {
		return true
	}
	if rawPath == "" {
		// Go's escaping never escapes '/': the decoded path has the
		// sender's segments.
		return !m.slash && path == m.plain
	}
	rest := rawPath
	for i, want := range m.segs {
		seg, after, more := strings.Cut(rest, "/")
		if more != (i < len(m.segs)-1) {
			return false
		}
		if d, err := url.PathUnescape(seg); err != nil || d != want {
			return false
		}
		rest = after
	}
	return true
}
