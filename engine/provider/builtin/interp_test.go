package builtin

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n += int64(n)
	return n, err
}

// maxSonameRead is the most elfSoname reads: the header, the program
// headers, the dynamic segment and the string, at their bounds.
const maxSonameRead = 64 + 64 + maxInterpProgHeaders + maxInterpDynamic + maxInterpSoname

// TestElfSonameOfHostLibraries: on the host's interpreter and libraries,
// elfSoname (which reads the headers and tables only) finds the soname
// readElfDeps (which parses the whole image) finds, reading a small part of
// each file.
func TestElfSonameOfHostLibraries(t *testing.T) {
	paths, _ := filepath.Glob("/usr/lib/x86_64-linux-gnu/lib*.so.*")
	paths = append([]string{"/lib64/ld-linux-x86-64.so.2"}, paths...)
	checked := 0
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > 8<<20 {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		d, err := readElfDeps(b)
		if err != nil {
			continue
		}
		r := &countingReader{r: bytes.NewReader(b)}
		got, err := elfSoname(r, int64(len(b)))
		if err != nil || got != d.soname {
			t.Errorf("%s: elfSoname %q %v, readElfDeps %q", p, got, err, d.soname)
		}
		if r.n > maxSonameRead || len(b) > 1<<20 && r.n > int64(len(b))/4 {
			t.Errorf("%s: read %d of %d bytes", p, r.n, len(b))
		}
		if checked++; checked == 200 {
			break
		}
	}
	if checked < 10 {
		t.Skipf("only %d host libraries to check", checked)
	}
}

// FuzzElfSoname: any bytes give a soname or an error wrapping errNotELF,
// never a panic; the reads stay within the bounds; the soname has no NUL;
// and where readElfDeps finds a soname, elfSoname finds the same. Seeds:
// FuzzOpen's corpus (ELF, PE, Mach-O).
func FuzzElfSoname(f *testing.F) {
	ents, _ := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzOpen"))
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzOpen", e.Name()))
		if err != nil {
			continue
		}
		s := strings.TrimSpace(strings.TrimPrefix(string(b), "go test fuzz v1\n"))
		if q, ok := strings.CutPrefix(s, "[]byte("); ok {
			if v, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
				f.Add([]byte(v))
			}
		}
	}
	if b, err := os.ReadFile("/lib64/ld-linux-x86-64.so.2"); err == nil && len(b) < 1<<20 {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &countingReader{r: bytes.NewReader(data)}
		got, err := elfSoname(r, int64(len(data)))
		if r.n > maxSonameRead {
			t.Fatalf("read %d bytes", r.n)
		}
		if err != nil {
			if !errors.Is(err, errNotELF) {
				t.Fatalf("error %v does not wrap errNotELF", err)
			}
			return
		}
		if strings.IndexByte(got, 0) >= 0 || len(got) >= maxInterpSoname {
			t.Fatalf("soname %q", got)
		}
		if d, derr := readElfDeps(data); derr == nil && d.soname != "" && got != d.soname {
			t.Fatalf("elfSoname %q, readElfDeps %q", got, d.soname)
		}
	})
}
