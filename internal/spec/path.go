package spec

import "strings"

// Each is the path segment that stands for every element of an array.
const Each = "[]"

// Path is the dotted path of a member, as --set and the checks write it
// (data.items.0.price): parts joined by '.'.
func Path(parts ...string) string { return strings.Join(parts, ".") }
