package validate

import "syscall"

// adviseHuge asks the kernel to back b, aligned to hugePage, with huge
// pages. It is advice: when transparent huge pages are off, or none is
// free, b gets small pages as before.
func adviseHuge(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
