//go:build !linux

package builtin

import "io/fs"

type fileID struct{}

// fileIdentity is only known on Linux here; elsewhere nothing is warmed.
func fileIdentity(fs.FileInfo) (fileID, bool) { return fileID{}, false }
