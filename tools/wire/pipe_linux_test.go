package wire

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// An answer at the byte budget (about 140 KB on the wire) fits the stdout
// pipe whole once growPipe has widened it; anything else is left alone.
func TestGrowPipeWidensAStdoutPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	before, err := unix.FcntlInt(pw.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	growPipe(pw)
	after, err := unix.FcntlInt(pw.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if after < stdoutPipeSize {
		t.Fatalf("pipe of %d bytes (was %d), want %d", after, before, stdoutPipeSize)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // a regular file: nothing to do, and no failure
}
