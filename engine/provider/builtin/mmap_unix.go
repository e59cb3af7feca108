//go:build unix

package builtin

import (
	"os"

	"golang.org/x/sys/unix"
)

// mmapFile maps size bytes of f read-only. ok is false when the file cannot be
// mapped (special files, exotic file systems); callers then read it instead.
func mmapFile(f *os.File, size int64) (data []byte, unmap func() error, ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	_ = unix.Madvise(b, unix.MADV_WILLNEED)
	return b, func() error { return unix.Munmap(b) }, true
}

// dropPages unmaps the resident pages of a read-only shared file mapping
// from this process; a later read faults them in again from the page cache.
func dropPages(b []byte) {
	_ = unix.Madvise(b, unix.MADV_DONTNEED)
}
