package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkFixtures builds every linker fixture and checks what the others
// rely on: ldd finds the ELF libraries beside the program through
// DT_RUNPATH $ORIGIN, and each output exists where it is said to be.
func TestLinkFixtures(t *testing.T) {
	dir, exe, one, two := AppWithLibraries(t)
	if filepath.Dir(exe) != dir || filepath.Base(one) != "libone.so" || filepath.Base(two) != "libtwo.so.1" {
		t.Fatalf("app %s %s %s %s", dir, exe, one, two)
	}
	out, err := exec.Command(Need(t, "ldd"), exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"libone.so => " + one, "libtwo.so.1 => " + two, "libc.so.6 => "} {
		if !strings.Contains(strings.ReplaceAll(string(out), dir+"/./", dir+"/"), want) {
			t.Errorf("ldd does not show %q:\n%s", want, out)
		}
	}
	// two_fn(1), two_new(1), dup_fn@@TWO_2.0(1) + two_data: 2 3 10
	if b, err := exec.Command(exe).Output(); err != nil || !strings.Contains(string(b), " 2 3 10\napp\ntwo: app 2\n") {
		t.Errorf("the program printed %q, %v", b, err)
	}
	wdir, wexe, dll := WindowsAppWithDLL(t)
	mdir, mexe, dylib := MachOAppWithDylib(t)
	for _, p := range []string{wexe, dll, mexe, dylib, DarwinGoProgram(t)} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if filepath.Dir(wexe) != wdir || filepath.Dir(dylib) != mdir || filepath.Dir(mexe) != mdir {
		t.Errorf("outputs outside their directories: %s %s %s", wexe, mexe, dylib)
	}
}
