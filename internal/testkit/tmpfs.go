package testkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// SmallFilesystem mounts a tmpfs of size bytes on a new directory of the
// test's temporary directory and returns it, for tests of a full disk. It
// is unmounted when the test ends (after the cleanups registered later, so
// close what holds files on it in a cleanup of your own). Mounting needs
// root (CAP_SYS_ADMIN): elsewhere the test skips, and fails under
// RequireAll.
func SmallFilesystem(t testing.TB, size int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		SkipOrFail(t, fmt.Sprintf("cannot mount a tmpfs (%v): run the test as root to test a full disk", err))
	}
	t.Cleanup(func() {
		err := unix.Unmount(dir, 0)
		if errors.Is(err, unix.EBUSY) {
			err = unix.Unmount(dir, unix.MNT_DETACH) // a process of the test still holds a file: detach
		}
		if err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// FillFilesystem writes a file in dir until the filesystem has no space
// left, and returns its path: removing it frees the space again.
func FillFilesystem(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, unix.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	// The last partial block too.
	for n := len(chunk) / 2; n > 0; n /= 2 {
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
	return path
}
