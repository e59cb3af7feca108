package builtin

import (
	"fmt"
	"io"
	"os"
)

// mmapThreshold is the size below which a file is read into memory instead of
// being mapped: tiny files gain nothing from a mapping.
const mmapThreshold = 64 << 10

// maxReadSize bounds what the ReadAt fallback reads into memory.
const maxReadSize = 4 << 30

// mapping is the bytes of one opened file: a read-only memory map when
// possible, else a heap copy. close releases the map.
type mapping struct {
	data  []byte
	unmap func() error
}

func openMapping(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() && st.Size() >= mmapThreshold {
		if b, unmap, ok := mmapFile(f, st.Size()); ok {
			return &mapping{data: b, unmap: unmap}, nil
		}
	}
	// Small or special file: read it, bounded.
	b, err := io.ReadAll(io.LimitReader(f, maxReadSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxReadSize {
		return nil, fmt.Errorf("file larger than %d bytes cannot be read without a mapping", maxReadSize)
	}
	return &mapping{data: b}, nil
}

func (m *mapping) close() error {
	if m == nil {
		return nil
	}
	var err error
	if m.unmap != nil {
		err = m.unmap()
		m.unmap = nil
	}
	m.data = nil
	return err
}

// dropResident returns the mapped file pages this process has touched: they
// stay in the page cache, but leave the process's resident set until they
// are read again (the registry releasing an idle index, registry.go).
func (m *mapping) dropResident() {
	if m != nil && m.unmap != nil {
		dropPages(m.data)
	}
}
