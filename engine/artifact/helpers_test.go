package artifact

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/internal/testkit"
)

// runAsar runs the reference packer, @electron/asar (the independent
// oracle; see testkit.ASARPacker), with args.
func runAsar(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command(testkit.ASARPacker(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("asar %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func write(t testing.TB, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

// pattern is deterministic incompressible-looking content.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// asarBytes builds an ASAR archive from a header JSON and data, framed as
// the packer frames it.
func asarBytes(header string, data []byte) []byte {
	j := len(header)
	payload := 4 + j
	payload += (4 - payload%4) % 4
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(4))
	binary.Write(&b, binary.LittleEndian, uint32(payload+4))
	binary.Write(&b, binary.LittleEndian, uint32(payload))
	binary.Write(&b, binary.LittleEndian, uint32(j))
	b.WriteString(header)
	for b.Len() < 8+4+payload {
		b.WriteByte(0)
	}
	b.Write(data)
	return b.Bytes()
}

type zipEntry struct {
	name   string
	data   []byte
	mode   os.FileMode
	method uint16
}

func zipBytes(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: e.method}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(e.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func inventoryOf(t testing.TB, path, format string, o Options) (*Graph, error) {
	t.Helper()
	return Inventory(context.Background(), Root{Path: path, Format: format}, o)
}

func mustInventory(t testing.TB, path, format string, o Options) *Graph {
	t.Helper()
	g, err := inventoryOf(t, path, format, o)
	if err != nil {
		t.Fatalf("inventory %s: %v (%s)", path, err, details(err))
	}
	return g
}

func details(err error) string {
	var fe *fault.Error
	if errors.As(err, &fe) {
		b, _ := json.Marshal(fe)
		return string(b)
	}
	return ""
}

// wantFault asserts err is a typed error with code and, when reason is not
// empty, details.reason (or details.limit for truncated).
func wantFault(t testing.TB, err error, code fault.Code, reason string) *fault.Error {
	t.Helper()
	var fe *fault.Error
	if !errors.As(err, &fe) {
		t.Fatalf("want %s/%s, got %v", code, reason, err)
	}
	if fe.Code != code {
		t.Fatalf("want %s/%s, got %s", code, reason, details(err))
	}
	if reason != "" {
		got, _ := fe.Details["reason"].(string)
		if code == fault.Truncated {
			got, _ = fe.Details["limit"].(string)
		}
		if got != reason {
			t.Fatalf("want %s/%s, got %s", code, reason, details(err))
		}
	}
	return fe
}

func occByPath(g *Graph) map[string]Occurrence {
	m := map[string]Occurrence{}
	for _, o := range g.Occurrences {
		m[o.LogicalPath] = o
	}
	return m
}

func nodeSHA(g *Graph, o Occurrence) string {
	if o.ArtifactID == nil {
		return ""
	}
	for _, n := range g.Nodes {
		if n.ArtifactID == *o.ArtifactID {
			return n.SHA256
		}
	}
	return ""
}

// listDir returns every path below dir ("" when empty), for "nothing
// written" assertions.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if p != dir {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	return out
}
