//go:build !unix

package builtin

import "os"

func mmapFile(f *os.File, size int64) (data []byte, unmap func() error, ok bool) {
	return nil, nil, false
}

func dropPages([]byte) {}
