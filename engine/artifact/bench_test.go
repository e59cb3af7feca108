package artifact

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Benchmarks of issue 6: inventory (hashing included) of Go's own src tree,
// as a directory and packed as ASAR by the reference packer, against
// `find … -type f -print0 | xargs -0 sha256sum` over the same bytes. All
// report MB/s of file content, so the ratio is read off one run:
//
//	go test -run '^$' -bench 'GoSrc' -benchtime 5x -count 3 ./engine/artifact/

var (
	benchDir  string
	benchOnce sync.Once
	asarOnceB sync.Once
	asarPath  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func goSrc(b *testing.B) (string, int64) {
	src := filepath.Join(runtime.GOROOT(), "src")
	var total int64
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, _ := d.Info()
			total += fi.Size()
		}
		return err
	})
	if err != nil {
		b.Skip("no Go source tree: ", err)
	}
	return src, total
}

func goSrcASAR(b *testing.B) string {
	src, _ := goSrc(b)
	asarOnceB.Do(func() {
		var err error
		if benchDir, err = os.MkdirTemp("", "rea-artifact-bench-"); err != nil {
			b.Fatal(err)
		}
		asarPath = filepath.Join(benchDir, "gosrc.asar")
		runAsar(b, "pack", src, asarPath)
	})
	return asarPath
}

var benchLimits = Limits{MaxEntries: 1000000, MaxTotalBytes: 1 << 40, MaxEntryBytes: 1 << 30, MaxCompressionRatio: 1000, MaxDepth: 20, MaxPathBytes: 4096}

func BenchmarkInventoryGoSrcDirectory(b *testing.B) {
	src, total := goSrc(b)
	b.SetBytes(total)
	for b.Loop() {
		if _, err := Inventory(context.Background(), Root{Path: src, Format: FormatDirectory}, Options{Limits: benchLimits}); err != nil {
			b.Fatal(err)
		}
	}
}

// The ASAR benchmark hashes every entry and verifies its declared
// integrity, and computes the archive's own sha256 too (the root digest);
// the "known-root" variant takes that digest from open_binary, as the tool
// does.
func BenchmarkInventoryGoSrcASAR(b *testing.B) {
	_, total := goSrc(b)
	path := goSrcASAR(b)
	b.SetBytes(total)
	for b.Loop() {
		if _, err := Inventory(context.Background(), Root{Path: path, Format: FormatASAR}, Options{Limits: benchLimits}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkInventoryGoSrcASARKnownRoot(b *testing.B) {
	_, total := goSrc(b)
	path := goSrcASAR(b)
	b.SetBytes(total)
	for b.Loop() {
		if _, err := Inventory(context.Background(), Root{Path: path, Format: FormatASAR, SHA256: "0000000000000000000000000000000000000000000000000000000000000000"}, Options{Limits: benchLimits}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSha256sumGoSrc(b *testing.B) {
	src, total := goSrc(b)
	if _, err := exec.LookPath("sha256sum"); err != nil {
		b.Skip("sha256sum not installed")
	}
	b.SetBytes(total)
	for b.Loop() {
		c := exec.Command("sh", "-c", `find "$1" -type f -print0 | xargs -0 sha256sum >/dev/null`, "sh", src)
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
}
