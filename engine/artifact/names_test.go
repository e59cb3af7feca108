package artifact

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/fault"
)

func TestLogicalOf(t *testing.T) {
	for raw, want := range map[string]string{
		"main.js":          "main.js",
		"100%.txt":         "100%.txt", // valid UTF-8 is kept, '%' included
		"\xff1.txt":        "%FF1.txt",
		"\xfe1.txt":        "%FE1.txt",
		"\xfd%.txt":        "%FD%25.txt",
		"d\xc3/é\xe2\x82":  "d%C3/é%E2%82",     // per segment; the valid one is kept
		"ok/%41/\x80":      "ok/%41/%80",       // a valid segment keeps its '%'
		"\xef\xbf\xbd.txt": "\xef\xbf\xbd.txt", // a real U+FFFD is valid
		"\xed\xa0\x80":     "%ED%A0%80",        // an encoded surrogate is not UTF-8
		"a\xc0\xafb":       "a%C0%AFb",         // overlong '/'
		"日本\xff語":          "日本%FF語",
	} {
		if got := logicalOf(raw); got != want {
			t.Errorf("logicalOf(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRawJSONString(t *testing.T) {
	for lit, want := range map[string]string{
		`"plain"`:             "plain",
		`"\u00ff\/\n\"\\"`:    "\u00ff/\n\"\\",
		`"\ud83d\ude00"`:      "\U0001F600",
		`"\udcff1"`:           "\ufffd1", // a lone surrogate, as encoding/json
		`"\ud83d1"`:           "\ufffd1",
		"\"\xff1.txt\"":       "\xff1.txt",
		"\"\xfe\\u0041\xfd\"": "\xfeA\xfd",
	} {
		got, ok := rawJSONString([]byte(lit))
		if !ok || got != want {
			t.Errorf("rawJSONString(%q) = %q, %v; want %q", lit, got, ok, want)
		}
	}
	for _, bad := range []string{``, `"`, `"\x"`, `"\u12"`, "\"a\nb\"", `"a"b"`, `"\`} {
		if _, ok := rawJSONString([]byte(bad)); ok {
			t.Errorf("rawJSONString(%q) accepted", bad)
		}
	}
}

// FuzzLogicalNames: a logical path is valid UTF-8; two distinct raw names
// share one only when one of them is valid UTF-8 (the collision that
// finishListing refuses); and the raw decoding of a JSON literal agrees with
// encoding/json wherever the literal is valid UTF-8.
func FuzzLogicalNames(f *testing.F) {
	f.Add("\xff1.txt", "\xfe1.txt")
	f.Add("%FF1.txt", "\xff1.txt")
	f.Add("a/\xc3", "a/%C3")
	f.Fuzz(func(t *testing.T, a, b string) {
		la, lb := logicalOf(a), logicalOf(b)
		if !utf8.ValidString(la) {
			t.Fatalf("logicalOf(%q) = %q is not UTF-8", a, la)
		}
		if a != b && la == lb {
			for _, p := range [][2]string{{a, b}, {b, a}} {
				sa, sb := strings.Split(p[0], "/"), strings.Split(p[1], "/")
				for i := range min(len(sa), len(sb)) {
					if sa[i] != sb[i] && !utf8.ValidString(sa[i]) && !utf8.ValidString(sb[i]) {
						t.Fatalf("%q and %q, both not UTF-8, share %q", sa[i], sb[i], la)
					}
				}
			}
		}
		lit := append(append([]byte{'"'}, a...), '"')
		got, ok := rawJSONString(lit)
		var want string
		if err := json.Unmarshal(lit, &want); err == nil && utf8.Valid(lit) && (!ok || got != want) {
			t.Fatalf("rawJSONString(%q) = %q, %v; encoding/json %q", lit, got, ok, want)
		}
	})
}

// TestExtractPathAtPathMax: a relative path of exactly 4096 bytes (which
// openat2 does not take in one piece) and one of 600 components (nearly
// 6,000 bytes, as a hostile archive could ask before max_path_bytes was
// bounded) are
// created, re-checked as contained and removed without residue, all beneath
// the root descriptor.
func TestExtractPathAtPathMax(t *testing.T) {
	var parts []string
	for n := 0; n < 4096-250; n += 201 {
		parts = append(parts, strings.Repeat("d", 200))
	}
	atMax := strings.Join(parts, "/")
	atMax += "/" + strings.Repeat("f", 4096-len(atMax)-1)
	if len(atMax) != 4096 {
		t.Fatalf("built %d bytes", len(atMax))
	}
	deep := strings.Repeat("abcdefghi/", 599) + "f" // 5,991 bytes: past PATH_MAX, so every walk goes by components
	for _, rel := range []string{atMax, deep} {
		out := filepath.Join(t.TempDir(), "out")
		w, err := openOutput(out, "")
		if err != nil {
			t.Fatal(err)
		}
		fd, err := w.create(rel)
		if err != nil {
			t.Fatalf("create %d bytes: %v", len(rel), err)
		}
		os.NewFile(uintptr(fd), "f").Close()
		if err := w.verify(); err != nil {
			t.Fatalf("verify %d bytes: %v", len(rel), err)
		}
		if residual := w.cleanup(); len(residual) != 0 {
			t.Fatalf("%d bytes: %d residual paths", len(rel), len(residual))
		}
		w.close()
		if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%d bytes: output_root left: %v", len(rel), err)
		}
	}
}

// TestCleanupResidualPaths: what cleanup cannot remove (a directory another
// process put a file into) is listed, deepest first, as residual_paths of
// cleanup_incomplete, whose category is the underlying failure's.
func TestCleanupResidualPaths(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	w, err := openOutput(out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	fd, err := w.create("a/\xff/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.NewFile(uintptr(fd), "f").Close()
	if err := os.WriteFile(filepath.Join(out, "a", "\xff", "intruder"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	residual := w.cleanup()
	if !slices.Equal(residual, []string{"a/\xff", "a"}) {
		t.Fatalf("residual %q", residual)
	}
	if _, err := os.Lstat(filepath.Join(out, "a", "\xff", "f.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("created file left: %v", err)
	}
	err = cleanupFault(opFailed(extractOp, ReasonExists, "z", nil), residual)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.CleanupIncomplete || fe.Category != fault.CatExecutionFailure ||
		!slices.Equal(fe.Details["residual_paths"].([]string), []string{"a/%FF", "a"}) {
		t.Fatalf("fault %+v", fe)
	}
}

// TestExtractNestedNonUTF8: a file of a nested container, both named with
// bytes that are not UTF-8, is written at the raw path of the container
// joined with its own raw name, and reported under the logical one.
func TestExtractNestedNonUTF8(t *testing.T) {
	dir := t.TempDir()
	inner := zipBytes(t, zipEntry{name: "\xfe.txt", data: []byte("inner")})
	outer := filepath.Join(dir, "outer.zip")
	write(t, outer, zipBytes(t, zipEntry{name: "in\xff.zip", data: inner}, zipEntry{name: "in%FF.txt", data: []byte("x")}), 0o644)
	g := mustInventory(t, outer, FormatZip, Options{})
	o, ok := occByPath(g)["in%FF.zip/%FE.txt"]
	if !ok {
		t.Fatalf("occurrences %v", occByPath(g))
	}
	out := filepath.Join(dir, "out")
	x, err := Extract(context.Background(), Root{Path: outer, Format: FormatZip}, g,
		ExtractOptions{OutputRoot: out, OccurrenceIDs: []string{o.OccurrenceID}})
	if err != nil {
		t.Fatalf("extract: %v (%s)", err, details(err))
	}
	if len(x.Artifacts) != 1 || x.Artifacts[0].RelativePath != "in%FF.zip/%FE.txt" ||
		x.Artifacts[0].RawNameHex != hex.EncodeToString([]byte("in\xff.zip/\xfe.txt")) {
		t.Fatalf("artifacts %+v", x.Artifacts)
	}
	if b, err := os.ReadFile(filepath.Join(out, "in\xff.zip", "\xfe.txt")); err != nil || string(b) != "inner" {
		t.Fatalf("on disk: %q, %v", b, err)
	}
}
