package tools_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/internal/testkit"
)

// The hardening of issue 16 (CONTRACTS.md §0): names that are not UTF-8
// never collapse, long paths are no false escapes, and extraction has a
// ceiling the administrator narrows, refuses hidden paths and keeps 1 GiB
// free. Every test drives a real `rea mcp` over stdio in a temporary tree
// of its own, then checks that `rea ledger verify` passes and that nothing
// outside the output roots changed.

// rig is one `rea mcp` process over a fresh ledger in the tree dir.
type rig struct {
	t      *testing.T
	dir    string // the whole temporary tree
	ledger string
	outs   []string // output roots, excluded from the tree comparison
	before map[string]string
	s      *session
}

// newRig makes the tree (inputs are written by the test before start).
func newRig(t *testing.T) *rig {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"state", "in", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return &rig{t: t, dir: dir, ledger: filepath.Join(dir, "state", "ledger.db")}
}

func (r *rig) in(name string) string { return filepath.Join(r.dir, "in", name) }

// out names an output root below the tree (not created).
func (r *rig) out(name string) string {
	p := filepath.Join(r.dir, name)
	r.outs = append(r.outs, p)
	return p
}

// start lists the tree, then starts `rea mcp` with env and TMPDIR inside
// the tree, so a temporary file REA left behind would show in the listing.
func (r *rig) start(env ...string) *session {
	r.t.Helper()
	r.before = r.tree()
	r.s = startStdio(r.t, r.ledger, append([]string{"TMPDIR=" + filepath.Join(r.dir, "tmp")}, env...)...)
	r.t.Cleanup(r.finish)
	return r.s
}

// finish stops the server, verifies the ledger chain and compares the tree
// outside the output roots and the ledger's directory with the listing
// taken before the server started.
func (r *rig) finish() {
	r.t.Helper()
	r.s.c.Close()
	if out, err := exec.Command(testkit.Rea(r.t), "--ledger", r.ledger, "ledger", "verify").CombinedOutput(); err != nil {
		r.t.Errorf("rea ledger verify: %v\n%s", err, out)
	}
	after := r.tree()
	var diff []string
	for p, v := range after {
		if r.before[p] != v {
			diff = append(diff, "+ "+p+" "+v)
		}
	}
	for p, v := range r.before {
		if _, ok := after[p]; !ok {
			diff = append(diff, "- "+p+" "+v)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		r.t.Errorf("the tree outside the output roots changed:\n%s", strings.Join(diff, "\n"))
	}
}

// tree lists every path of the tree with its kind and size, except the
// output roots and the ledger's directory.
func (r *rig) tree() map[string]string {
	r.t.Helper()
	skip := append([]string{filepath.Join(r.dir, "state")}, r.outs...)
	m := map[string]string{}
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skip, p) {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m[p] = fi.Mode().String()
		if fi.Mode().IsRegular() {
			m[p] += " " + strconv.FormatInt(fi.Size(), 10)
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// onDisk lists the regular files below an output root as raw relative
// paths with their contents, opening each path through an os.Root (the
// paths may be longer than PATH_MAX once joined to the root, and need not
// be UTF-8, which io/fs paths must be).
func onDisk(t *testing.T, root string) map[string]string {
	t.Helper()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := map[string]string{}
	var walk func(dir string)
	walk = func(dir string) {
		f, err := r.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		des, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			p := de.Name()
			if dir != "." {
				p = dir + "/" + p
			}
			switch {
			case de.IsDir():
				walk(p)
			case de.Type().IsRegular():
				f, err := r.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				m[p] = string(b)
			default:
				t.Fatalf("%q: not a file or directory", p)
			}
		}
	}
	walk(".")
	return m
}

type extractReply struct {
	Result struct {
		Artifacts struct {
			Items []struct {
				RelativePath string `json:"relative_path"`
				RawNameHex   string `json:"raw_name_hex"`
				SHA256       string `json:"sha256"`
			} `json:"items"`
		} `json:"artifacts"`
		ContainmentVerified bool `json:"containment_verified"`
	} `json:"result"`
}

// written maps each reported file's raw name (decoded raw_name_hex, else
// relative_path) to its sha256, checking that the relative path is the
// logical one the inventory reported.
func (x extractReply) written(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, a := range x.Result.Artifacts.Items {
		name := a.RelativePath
		if a.RawNameHex != "" {
			b, err := hex.DecodeString(a.RawNameHex)
			if err != nil {
				t.Fatalf("raw_name_hex %q: %v", a.RawNameHex, err)
			}
			name = string(b)
		}
		m[name] = a.SHA256
	}
	return m
}

// rootID is the root occurrence (logical path "."), which selects every file.
func (r invReply) rootID(t *testing.T) string {
	id, _ := r.occurrence(t, ".")
	return id
}

func (s *session) extract(args map[string]any) reply {
	s.t.Helper()
	args["approved"] = true
	return s.call(context.Background(), "extract_artifact", args)
}

func reasonOf(e map[string]any) string {
	d, _ := e["details"].(map[string]any)
	r, _ := d["reason"].(string)
	return r
}

// zipOf writes a zip of name → content with Go's archive/zip, names as
// raw bytes (no UTF-8 flag unless the name is UTF-8).
func zipOf(t *testing.T, path string, names []string, content func(string) string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, content(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pythonZip writes the same with Python's zipfile. zipfile encodes a name
// as ASCII or UTF-8 only; a ZipInfo that encodes its latin-1 str back to
// the bytes it stands for writes the raw name as another producer would.
func pythonZip(t *testing.T, path string, names []string, content func(string) string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		testkit.SkipOrFail(t, "python3 is not installed; install it to build the zipfile fixture")
	}
	var args []string
	for _, n := range names {
		args = append(args, hex.EncodeToString([]byte(n)), hex.EncodeToString([]byte(content(n))))
	}
	const script = `
import sys, zipfile
class Raw(zipfile.ZipInfo):
    def _encodeFilenameFlags(self):
        return self.filename.encode('latin-1'), self.flag_bits
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    a = sys.argv[2:]
    for i in range(0, len(a), 2):
        z.writestr(Raw(bytes.fromhex(a[i]).decode('latin-1')), bytes.fromhex(a[i+1]))
`
	if out, err := exec.Command(py, append([]string{"-c", script, path}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("python3 zipfile: %v\n%s", err, out)
	}
}

// asarOf hand-builds an ASAR archive (§10.4) whose header JSON holds the
// names as raw bytes, which no packer writes but a hostile archive can.
func asarOf(t *testing.T, path string, names []string, content func(string) string) {
	t.Helper()
	var js, data bytes.Buffer
	js.WriteString(`{"files":{`)
	for i, n := range names {
		if i > 0 {
			js.WriteByte(',')
		}
		c := content(n)
		js.WriteString(`"` + n + `":{"size":` + strconv.Itoa(len(c)) + `,"offset":"` + strconv.Itoa(data.Len()) + `"}`)
		data.WriteString(c)
	}
	js.WriteString(`}}`)
	j := js.Len()
	pad := (4 - j%4) % 4
	payload := 4 + j + pad
	hs := payload + 4
	var b bytes.Buffer
	for _, v := range []int{4, hs, payload, j} {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(v)))
	}
	b.Write(js.Bytes())
	b.Write(make([]byte, pad))
	b.Write(data.Bytes())
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirOf writes the names as files of a directory.
func dirOf(t *testing.T, path string, names []string, content func(string) string) {
	t.Helper()
	for _, n := range names {
		writeFile(t, filepath.Join(path, n), content(n))
	}
}

// TestNonUTF8NamesNeverCollapse: \xff1.txt and \xfe1.txt (and a '%' in an
// invalid name) get distinct logical paths and occurrence ids, are written
// under their own bytes, and a valid name that reads like an escape of an
// invalid one is a collision — from Go's archive/zip, Python's zipfile, a
// hand-built ASAR and a directory.
func TestNonUTF8NamesNeverCollapse(t *testing.T) {
	distinct := []string{"\xff1.txt", "\xfe1.txt", "\xfd%.txt", "ok.txt"}
	logical := map[string]string{"\xff1.txt": "%FF1.txt", "\xfe1.txt": "%FE1.txt", "\xfd%.txt": "%FD%25.txt", "ok.txt": "ok.txt"}
	content := func(n string) string { return "content of " + hex.EncodeToString([]byte(n)) + "\n" }
	for _, producer := range []struct {
		name, ext string
		build     func(*testing.T, string, []string, func(string) string)
	}{
		{"archive-zip", ".zip", zipOf},
		{"python-zipfile", ".zip", pythonZip},
		{"hand-built-asar", ".asar", asarOf},
		{"directory", ".d", dirOf},
	} {
		t.Run(producer.name, func(t *testing.T) {
			r := newRig(t)
			arch := r.in("names" + producer.ext)
			producer.build(t, arch, distinct, content)
			clash := r.in("clash" + producer.ext)
			producer.build(t, clash, []string{"\xff1.txt", "%FF1.txt"}, content)
			out := r.out("out")
			s := r.start()

			s.ok("open_binary", map[string]any{"path": arch})
			inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
			ids := map[string]bool{}
			for _, n := range distinct {
				id, st := inv.occurrence(t, logical[n])
				if st != "verified" || ids[id] {
					t.Fatalf("%q: status %s, id %s shared", logical[n], st, id)
				}
				ids[id] = true
			}
			if n := inv.Result.Manifest.OccurrenceCount; n != len(distinct)+1 {
				t.Fatalf("occurrences %d: %+v", n, inv.Result.Occurrences.Items)
			}

			// Extraction writes exactly the names its manifest reports.
			rep := s.extract(map[string]any{"output_root": out, "occurrence_ids": []string{inv.rootID(t)}})
			if rep.IsError {
				t.Fatalf("extract: %s", rep.Structured)
			}
			x := decode[extractReply](t, rep.Structured)
			got := x.written(t)
			disk := onDisk(t, out)
			if len(got) != len(distinct) || len(disk) != len(distinct) {
				t.Fatalf("manifest %v, on disk %v", got, disk)
			}
			for _, a := range x.Result.Artifacts.Items {
				raw, _ := hex.DecodeString(a.RawNameHex)
				if a.RawNameHex == "" {
					raw = []byte(a.RelativePath)
				}
				if logical[string(raw)] != a.RelativePath {
					t.Fatalf("relative_path %q for raw %q", a.RelativePath, raw)
				}
				if (a.RawNameHex != "") != (string(raw) != a.RelativePath) {
					t.Fatalf("raw_name_hex %q for %q", a.RawNameHex, a.RelativePath)
				}
			}
			for name, sum := range got {
				if c, ok := disk[name]; !ok || sha(c) != sum || c != content(name) {
					t.Fatalf("%q: on disk %v, content %q", name, ok, c)
				}
			}

			// Collisions are decided on the reported logical paths.
			s.ok("open_binary", map[string]any{"path": clash})
			e := s.errorOf("inventory_artifact", map[string]any{})
			d, _ := e["details"].(map[string]any)
			if e["code"] != "artifact_operation_failed" || reasonOf(e) != "collision" || d["logical_path"] != "%FF1.txt" {
				t.Fatalf("clash: %v", e)
			}
		})
	}
}

// longName is a path of n bytes in components of at most 200 bytes.
func longName(n int, last string) string {
	var parts []string
	left := n - len(last)
	for left > 0 {
		k := min(200, left-1) // each component pays one '/'
		if left-1-k > 0 && left-1-k < 2 {
			k -= 2
		}
		parts = append(parts, strings.Repeat(string(rune('a'+len(parts)%26)), k))
		left -= k + 1
	}
	return strings.Join(append(parts, last), "/")
}

// TestExtractLongPaths: a 4,090-byte logical path (far past PATH_MAX once
// joined to output_root) extracts instead of failing as a false
// outside_approved_root; a failure after deep directories were created
// removes every one of them; a path over max_path_bytes and a 300-byte
// component are path_too_long, refused before anything is written.
func TestExtractLongPaths(t *testing.T) {
	r := newRig(t)
	deep := longName(4090, "f.txt")
	if len(deep) != 4090 {
		t.Fatalf("built a %d-byte path", len(deep))
	}
	content := func(n string) string { return "bytes of a " + strconv.Itoa(len(n)) + "-byte path\n" }
	arch := r.in("long.zip")
	zipOf(t, arch, []string{deep, "z.txt"}, content)
	over := r.in("over.zip")
	zipOf(t, over, []string{longName(4100, "f.txt")}, content)
	comp := r.in("component.zip")
	zipOf(t, comp, []string{"d/" + strings.Repeat("c", 300) + "/f.txt", "a.txt"}, content)
	okOut, clashOut, overOut, compOut := r.out("ok"), r.out("clash"), r.out("over"), r.out("component")
	writeFile(t, filepath.Join(clashOut, "z.txt"), "was here first")
	s := r.start()

	s.ok("open_binary", map[string]any{"path": arch})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	deepID, _ := inv.occurrence(t, deep)
	rep := s.extract(map[string]any{"output_root": okOut, "occurrence_ids": []string{deepID}})
	if rep.IsError {
		t.Fatalf("4,090-byte path: %s", rep.Structured)
	}
	if disk := onDisk(t, okOut); len(disk) != 1 || disk[deep] != content(deep) ||
		!decode[extractReply](t, rep.Structured).Result.ContainmentVerified {
		t.Fatalf("on disk: %d files", len(disk))
	}

	// z.txt exists: the extraction fails after creating the deep tree, and
	// removes all of it; only the file that was there remains.
	e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": clashOut,
		"occurrence_ids": []string{inv.rootID(t)}})
	if e["code"] != "artifact_operation_failed" || reasonOf(e) != "exists" {
		t.Fatalf("clash: %v", e)
	}
	var left []string
	filepath.WalkDir(clashOut, func(p string, d fs.DirEntry, err error) error {
		left = append(left, p)
		return nil
	})
	if !slices.Equal(left, []string{clashOut, filepath.Join(clashOut, "z.txt")}) {
		t.Fatalf("after a failed extraction %d paths remain: %.300v", len(left), left)
	}

	for _, c := range []struct {
		arch, out, bound string
		args             map[string]any
	}{
		{over, overOut, "path", map[string]any{}},
		{arch, overOut, "path", map[string]any{"max_path_bytes": 4000}},
		{comp, compOut, "component", map[string]any{}},
	} {
		s.ok("open_binary", map[string]any{"path": c.arch})
		inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{"max_path_bytes": 65535}).Structured)
		c.args["output_root"], c.args["occurrence_ids"] = c.out, []string{inv.rootID(t)}
		c.args["approved"] = true
		e := s.errorOf("extract_artifact", c.args)
		d, _ := e["details"].(map[string]any)
		if e["code"] != "artifact_operation_failed" || reasonOf(e) != "path_too_long" || d["bound"] != c.bound {
			t.Fatalf("%s: %v", c.arch, e)
		}
		if _, err := os.Lstat(c.out); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: output_root exists after a refusal: %v", c.arch, err)
		}
	}
	// max_path_bytes is bounded by PATH_MAX.
	if e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": overOut,
		"occurrence_ids": []string{deepID}, "max_path_bytes": 4097}); e["code"] != "invalid_request" {
		t.Fatalf("max_path_bytes 4097: %v", e)
	}
}

// TestExtractHiddenPaths: .ssh/authorized_keys and .bashrc are refused
// (hidden_path) before anything is written, unless allow_hidden_paths:true.
func TestExtractHiddenPaths(t *testing.T) {
	r := newRig(t)
	arch := r.in("dots.zip")
	names := []string{".ssh/authorized_keys", ".bashrc", "config/.autostart/x.desktop", "visible.txt"}
	zipOf(t, arch, names, func(n string) string { return "planted " + n })
	refused, visible, allowed := r.out("refused"), r.out("visible"), r.out("allowed")
	s := r.start()
	s.ok("open_binary", map[string]any{"path": arch})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	for _, n := range names[:3] {
		id, _ := inv.occurrence(t, n)
		e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": refused, "occurrence_ids": []string{id}})
		if e["code"] != "artifact_operation_failed" || reasonOf(e) != "hidden_path" {
			t.Fatalf("%s: %v", n, e)
		}
	}
	if e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": refused,
		"occurrence_ids": []string{inv.rootID(t)}}); reasonOf(e) != "hidden_path" {
		t.Fatalf("root: %v", e)
	}
	if _, err := os.Lstat(refused); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("output_root exists after a refusal: %v", err)
	}
	id, _ := inv.occurrence(t, "visible.txt")
	s.ok("extract_artifact", map[string]any{"approved": true, "output_root": visible, "occurrence_ids": []string{id}})
	if d := onDisk(t, visible); len(d) != 1 || d["visible.txt"] != "planted visible.txt" {
		t.Fatalf("visible: %v", d)
	}
	s.ok("extract_artifact", map[string]any{"approved": true, "output_root": allowed, "allow_hidden_paths": true,
		"occurrence_ids": []string{inv.rootID(t)}})
	if d := onDisk(t, allowed); len(d) != len(names) || d[".ssh/authorized_keys"] != "planted .ssh/authorized_keys" {
		t.Fatalf("allowed: %v", d)
	}
}

// TestExtractNarrowedCeiling: REA_ARTIFACT_EXTRACT_ROOTS_JSON bounds
// artifact_extract; outside it the call is permission_required with
// restart_required:true and nothing is created; inside it approved:true is
// still required; the server maxima hold whatever the ceiling.
func TestExtractNarrowedCeiling(t *testing.T) {
	r := newRig(t)
	arch := r.in("a.zip")
	zipOf(t, arch, []string{"a.txt"}, func(string) string { return "a\n" })
	allowedRoot := filepath.Join(r.dir, "allowed")
	if err := os.Mkdir(allowedRoot, 0o700); err != nil {
		t.Fatal(err)
	}
	r.outs = append(r.outs, allowedRoot)
	outside := r.out("outside")
	s := r.start(`REA_ARTIFACT_EXTRACT_ROOTS_JSON=["` + allowedRoot + `"]`)
	s.ok("open_binary", map[string]any{"path": arch})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	id, _ := inv.occurrence(t, "a.txt")

	e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": outside, "occurrence_ids": []string{id}})
	rem, _ := e["remediation"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	if e["code"] != "permission_required" || rem["restart_required"] != true || d["capability"] != "artifact_extract" {
		t.Fatalf("outside the ceiling: %v", e)
	}
	if _, err := os.Lstat(outside); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("output_root created despite the denial: %v", err)
	}
	inside := filepath.Join(allowedRoot, "out")
	if e := s.errorOf("extract_artifact", map[string]any{"approved": false, "output_root": inside,
		"occurrence_ids": []string{id}}); e["code"] != "invalid_request" {
		t.Fatalf("approved:false: %v", e)
	}
	for k, v := range map[string]any{"max_total_bytes": int64(64<<30) + 1, "max_entries": 1000001} {
		if e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": inside,
			"occurrence_ids": []string{id}, k: v}); e["code"] != "invalid_request" {
			t.Fatalf("%s %v: %v", k, v, e)
		}
	}
	s.ok("extract_artifact", map[string]any{"approved": true, "output_root": inside, "occurrence_ids": []string{id}})
	if d := onDisk(t, inside); d["a.txt"] != "a\n" {
		t.Fatalf("inside: %v", d)
	}
}

// TestExtractFreeSpace: an extraction that would leave less than 1 GiB
// free on the output filesystem is insufficient_space, refused before it
// writes; a smaller one on the same filesystem succeeds. The filesystem is
// a tmpfs of 1 GiB + 1 MiB when the test may mount one; otherwise the same
// free space is injected below the engine of an in-process server.
func TestExtractFreeSpace(t *testing.T) {
	r := newRig(t)
	arch := r.in("space.zip")
	big := strings.Repeat("0123456789abcdef", 2<<20/16) // 2 MiB: more than the 1 MiB above the reserve
	zipOf(t, arch, []string{"big.bin", "small.txt"}, func(n string) string {
		if n == "big.bin" {
			return big
		}
		return "small\n"
	})
	small := filepath.Join(r.dir, "small")
	if err := os.Mkdir(small, 0o700); err != nil {
		t.Fatal(err)
	}
	r.outs = append(r.outs, small)
	const size = 1<<30 + 1<<20
	var s *session
	if err := unix.Mount("tmpfs", small, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size="+strconv.Itoa(size)+",mode=0700"); err == nil {
		t.Cleanup(func() {
			if err := unix.Unmount(small, 0); err != nil {
				t.Errorf("umount %s: %v", small, err)
			}
		})
		s = r.start()
	} else {
		t.Logf("no tmpfs (%v): injecting the free space below the engine of an in-process server", err)
		s, _ = artifactServer(t, func(c *engine.Config) {
			c.ExtractFreeSpace = func(int) (int64, error) { return size, nil }
		})
		r.before = r.tree()
		r.s = s
		t.Cleanup(func() {
			if after := r.tree(); len(after) != len(r.before) {
				t.Errorf("the tree changed: %v → %v", r.before, after)
			}
		})
	}
	s.ok("open_binary", map[string]any{"path": arch})
	inv := decode[invReply](t, s.ok("inventory_artifact", map[string]any{}).Structured)
	refused := filepath.Join(small, "refused")
	e := s.errorOf("extract_artifact", map[string]any{"approved": true, "output_root": refused,
		"occurrence_ids": []string{inv.rootID(t)}})
	d, _ := e["details"].(map[string]any)
	if e["code"] != "artifact_operation_failed" || reasonOf(e) != "insufficient_space" {
		t.Fatalf("2 MiB on %d free: %v", size, e)
	}
	if req, _ := d["required_bytes"].(float64); int(req) != len(big)+len("small\n") {
		t.Fatalf("required_bytes %v", d["required_bytes"])
	}
	if _, err := os.Lstat(refused); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("output_root left after the refusal: %v", err)
	}
	id, _ := inv.occurrence(t, "small.txt")
	fits := filepath.Join(small, "fits")
	s.ok("extract_artifact", map[string]any{"approved": true, "output_root": fits, "occurrence_ids": []string{id}})
	if d := onDisk(t, fits); d["small.txt"] != "small\n" {
		t.Fatalf("fits: %v", d)
	}
}
