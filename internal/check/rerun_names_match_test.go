package check

import (
	"regexp"
	"strconv"
	"testing"
)

// The hand-written readers of the names a run's settings make agree with
// the patterns they stand for (which were regexps, compiled before main in
// every process: TestNoPackageLevelCompiles).
func TestRunDependentNamesReadAsTheirPatterns(t *testing.T) {
	t.Parallel()
	load := regexp.MustCompile(`^[1-9][0-9]{0,8}-calls-at-[1-9][0-9]{0,8}$`)
	underLoad := regexp.MustCompile(`^under-load/[0-9]{1,9}-of-[0-9]{1,9}-documents$`)
	atOnce := regexp.MustCompile(`concurrent-x([0-9]{1,3})$`)
	names := []string{
		"", "300-calls-at-16", "1-calls-at-1", "0-calls-at-16", "300-calls-at-0", "300-calls-at-", "-calls-at-16",
		"123456789-calls-at-987654321", "1234567890-calls-at-1", "1-calls-at-1234567890", "3x0-calls-at-16",
		"300-calls-at-16-calls-at-2", " 300-calls-at-16", "300-calls-at-16\n", "300-calls-at-١٦",
		"under-load/3-of-5-documents", "under-load/0-of-0-documents", "under-load/-of-5-documents",
		"under-load/3-of--documents", "under-load/1234567890-of-5-documents", "under-load/3-of-5-documents/x",
		"xunder-load/3-of-5-documents", "under-load/3-of-5-of-6-documents", "under-load/3-of-5-documentss",
		"CREATE_RECEIVABLE_DOC/concurrent-x8", "CREATE_RECEIVABLE_DOC/concurrent-x", "CREATE_RECEIVABLE_DOC/concurrent-x1000",
		"concurrent-x2", "concurrent-x08", "a/concurrent-x5concurrent-x8", "a/concurrent-x5b", "concurrent-x-1",
		"new-request-id-concurrent-x4", "concurrent-x4 ",
	}
	for _, name := range names {
		if got, want := isLoadName(name), load.MatchString(name); got != want {
			t.Errorf("isLoadName(%q) = %v, the pattern says %v", name, got, want)
		}
		if got, want := isUnderLoadName(name), underLoad.MatchString(name); got != want {
			t.Errorf("isUnderLoadName(%q) = %v, the pattern says %v", name, got, want)
		}
		prefix, n, ok := atOnceCopies(name)
		m := atOnce.FindStringSubmatchIndex(name)
		if ok != (m != nil) {
			t.Errorf("atOnceCopies(%q) ok %v, the pattern matches: %v", name, ok, m != nil)
			continue
		}
		if m == nil {
			continue
		}
		wantN, _ := strconv.Atoi(name[m[2]:m[3]])
		if prefix != name[:m[2]] || n != wantN {
			t.Errorf("atOnceCopies(%q) = %q, %d; the pattern reads %q, %d", name, prefix, n, name[:m[2]], wantN)
		}
	}
}
