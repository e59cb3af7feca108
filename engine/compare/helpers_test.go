package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/engine/target"
	"github.com/rea-re/rea/internal/testkit"
)

// builtinSide starts the builtin provider's client on path, as the engine
// would after open_binary, and returns a Side over it and its identity.
func builtinSide(t testing.TB, path string) (*ProviderSide, Identity) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := target.Detect(path, fi)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New() // streamed, as the engine hashes: not a copy of the file on the heap
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	p := builtin.New("test")
	tg := provider.Target{Path: path, SHA256: hex.EncodeToString(h.Sum(nil)), Size: fi.Size(), Format: d.Format,
		Kind: d.Kind, Architecture: d.Architecture}
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(context.Background(), tg, prof, provider.Run{ID: "run"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cl, err := c.Close(context.Background()); err != nil || !cl.Complete {
			t.Errorf("close: %+v %v", cl, err)
		}
	})
	return &ProviderSide{Client: c}, Identity{SHA256: tg.SHA256, AnalysisProfileDigest: prof.Digest}
}

// compareFiles compares two files over the builtin provider.
func compareFiles(t testing.TB, oldPath, newPath string) *Result {
	t.Helper()
	c := comparison(t, oldPath, newPath)
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func comparison(t testing.TB, oldPath, newPath string) *Comparison {
	t.Helper()
	l, lid := builtinSide(t, oldPath)
	r, rid := builtinSide(t, newPath)
	return &Comparison{Left: l, Right: r, LeftID: lid, RightID: rid}
}

var sourceFunction = regexp.MustCompile(`(?m)^(?:static )?(?:FN [^(]*?|int )\b(\w+)\(`)

// sourceFunctions are the functions defined in a fixture version.
func sourceFunctions(t testing.TB, version string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.CompareFixtureDir(), "fixture_"+version+".c"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range sourceFunction.FindAllSubmatch(b, -1) {
		out[string(m[1])] = true
	}
	return out
}

// symbolNames maps each procedure address of an unstripped build to its
// name: the ground truth for the stripped copy, whose code is the same.
func symbolNames(t testing.TB, path string) map[string]string {
	t.Helper()
	s, _ := builtinSide(t, path)
	l, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range l.Procedures {
		out[formatAddr(p.Address)] = p.Name
	}
	return out
}

func set(xs ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func fileDigest(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func canonSHA(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
