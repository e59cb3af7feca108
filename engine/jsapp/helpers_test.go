package jsapp

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/internal/testkit"
)

// packASAR packs dir with @electron/asar, unpacking native addons.
func packASAR(t testing.TB, dir, out string) {
	t.Helper()
	cli := testkit.ASARPacker(t)
	if b, err := exec.Command(cli, "pack", dir, out, "--unpack", "*.node").CombinedOutput(); err != nil {
		t.Fatalf("asar pack: %v: %s", err, b)
	}
}

// rawASAR frames a header JSON and data the way §10.4 describes, with no
// validation, so tests can build hostile archives.
func rawASAR(header string, data []byte) []byte {
	j := len(header)
	payload := (4 + j + 3) &^ 3
	h := 4 + payload
	out := make([]byte, 16, 8+h+len(data))
	binary.LittleEndian.PutUint32(out[0:], 4)
	binary.LittleEndian.PutUint32(out[4:], uint32(h))
	binary.LittleEndian.PutUint32(out[8:], uint32(payload))
	binary.LittleEndian.PutUint32(out[12:], uint32(j))
	out = append(out, header...)
	for len(out) < 8+h {
		out = append(out, 0)
	}
	return append(out, data...)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func fileSHA(t testing.TB, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dirDigest is the directory digest of CONTRACTS.md §10.2, written
// independently of walkDir.
func dirDigest(t testing.TB, dir string) string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	type child struct {
		Name   string  `json:"name"`
		Kind   string  `json:"kind"`
		SHA256 *string `json:"sha256"`
		Link   *string `json:"link"`
	}
	cs := []child{}
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		switch {
		case de.IsDir():
			d := dirDigest(t, p)
			cs = append(cs, child{de.Name(), "directory", &d, nil})
		case de.Type()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			cs = append(cs, child{de.Name(), "symlink", nil, &l})
		default:
			s := fileSHA(t, p)
			cs = append(cs, child{de.Name(), "file", &s, nil})
		}
	}
	d, err := canon.Digest(cs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// copyTree copies src into dst (regular files and directories only).
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
