//go:build !linux

package validate

// adviseHuge does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseHuge([]byte) {}
