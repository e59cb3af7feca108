package jsapp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/internal/testkit"
)

// acornVersion is the npm acorn the side-by-side benchmark installs when
// REA_JSAPP_ACORN does not name one (bench/jsapp_acorn.sh pins the same).
const acornVersion = "8.19.0"

var (
	acornOnce sync.Once
	acornPath string
	acornErr  string
)

// acornDir is an installed acorn package: REA_JSAPP_ACORN, or acorn@
// acornVersion that npm installs once into the temp directory.
func acornDir(b testing.TB) string {
	acornOnce.Do(func() {
		if p := os.Getenv("REA_JSAPP_ACORN"); p != "" {
			acornPath = p
			return
		}
		dir := filepath.Join(os.TempDir(), "rea-jsapp-acorn-"+acornVersion)
		pkg := filepath.Join(dir, "node_modules", "acorn")
		if _, err := os.Stat(filepath.Join(pkg, "package.json")); err == nil {
			acornPath = pkg
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			acornErr = "npm is not installed; set REA_JSAPP_ACORN to an installed acorn package"
			return
		}
		if out, err := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir, "acorn@"+acornVersion).CombinedOutput(); err != nil {
			acornErr = "npm install acorn@" + acornVersion + ": " + err.Error() + ": " + string(out)
			return
		}
		acornPath = pkg
	})
	if acornPath == "" {
		testkit.SkipOrFail(b, acornErr)
	}
	return acornPath
}

// selectedJS lists, in the tool's order, the JavaScript files of a directory
// tree that analyze_javascript_application selects (§11.2: .js/.cjs/.mjs
// outside node_modules, within the per-file limit), from its own inventory.
func selectedJS(b testing.TB, root string, lim Limits) (paths []string, srcs [][]byte) {
	inv := &inventory{lim: lim, rep: progress.OrNop(nil)}
	defer inv.close()
	format, _, err := inv.build(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	if format != FormatDirectory {
		b.Fatalf("%s: the side-by-side benchmark needs a directory tree, not %s", root, format)
	}
	for _, e := range inv.entries {
		if e.kind != kindFile || !isJS(e.path) || inNodeModules(e.path) {
			continue
		}
		if e.size > lim.MaxTextFileBytes || !e.readable() || e.sha256 == "" {
			b.Fatalf("%s is selected but would be omitted; raise the benchmark's limits", e.path)
		}
		src, err := e.read()
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, e.osPath)
		srcs = append(srcs, src)
	}
	return paths, srcs
}

// withoutMain copies root without the "main" of its package.json, and also
// without the main entry's file when dropFile is set; it returns the copy
// and the main entry's path relative to root.
func withoutMain(b testing.TB, root string, dropFile bool) (string, string) {
	r, err := Analyze(context.Background(), Request{InputPath: root, Limits: benchLimits()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if r.Package.MainResolved == nil {
		b.Fatalf("%s: the package's main does not resolve; the benchmark needs a tree with a main entry", root)
	}
	mainRel := filepath.FromSlash(*r.Package.MainResolved)
	// The package.json whose main the tool resolved: the benchmark trees
	// have it at their root.
	pkgRel := "package.json"
	if _, err := os.Stat(filepath.Join(root, pkgRel)); err != nil {
		b.Fatalf("%s: the benchmark needs the application's package.json at the root: %v", root, err)
	}
	dst := b.TempDir()
	copyTree(b, root, dst)
	if dropFile {
		if err := os.Remove(filepath.Join(dst, mainRel)); err != nil {
			b.Fatal(err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dst, pkgRel))
	if err != nil {
		b.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	delete(doc, "main")
	raw, err = json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, pkgRel), raw, 0o600); err != nil {
		b.Fatal(err)
	}
	return dst, mainRel
}

// acornReport is what bench/acorn_parse.js prints.
type acornReport struct {
	Version string  `json:"acorn_version"`
	Files   int     `json:"files"`
	Bytes   int64   `json:"bytes"`
	ReadMS  float64 `json:"read_ms"`
	Passes  []struct {
		ParseMS  float64 `json:"parse_ms"`
		CPUMS    float64 `json:"cpu_ms"`
		Failures int     `json:"failures"`
	} `json:"passes"`
}

// acornRun is one node process parsing the list: its own figures and the
// whole process' wall and CPU time (start-up and reading included).
type acornRun struct {
	acornReport
	wall, cpu time.Duration
}

func runAcorn(b testing.TB, node, script, acorn, list string) acornRun {
	cmd := exec.Command(node, script, acorn, list, "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t0 := time.Now()
	out, err := cmd.Output()
	wall := time.Since(t0)
	if err != nil {
		b.Fatalf("node %s: %v: %s", script, err, stderr.String())
	}
	var r acornRun
	if err := json.Unmarshal(out, &r.acornReport); err != nil || len(r.Passes) != 2 {
		b.Fatalf("node %s printed %q: %v", script, out, err)
	}
	r.wall = wall
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r
}

// sideBySide is one tree of the benchmark and its per-round figures.
type sideBySide struct {
	name  string
	root  string
	list  string // the selected files, one per line, for node
	srcs  [][]byte
	bytes int64
	parse bool // the tool parses (not only scans) a file of this tree

	acorn                    []acornRun
	analyze, analyzeCPU      []time.Duration
	tokenize, tokenizeCPU    []time.Duration
	parsed, scanned, failed  int64
	acornVersion, acornFiles string
}

// BenchmarkAnalyzeVsAcorn times, side by side in one run, what
// analyze_javascript_application costs against what the npm acorn parser
// (run by node) takes to parse the same selected .js files (issue 23), and
// both against tokenizing those files whole (tokenizeAll, the issue-16
// baseline), on three versions of a large tree:
//   - main: the tree as it is; the tool parses its main entry (§11.2) and
//     scans the files that name no Electron API;
//   - nomain: a copy whose package.json has no "main"; the tool parses
//     nothing and scans every file, acorn still parses them all;
//   - nomainfile: the same copy without the main entry's file; both sides
//     see one file fewer.
//
// Each round (b.N of them) runs, per tree, one fresh node process (acorn's
// parse of every file, read beforehand; a second, warm pass; the whole
// process), then the tool (in process, limits raised so that no file is
// omitted, a forced collection inside its timing), then tokenizeAll. The
// ratios are taken within a round and reported as min and median over the
// rounds; the headline, analyze/acorn, divides the tool's wall time by the
// first (cold) pass of acorn's parse alone: node's start-up and the reading
// of the files are left out of acorn's side and kept in the tool's (whose
// inventory reads and hashes every file of the tree), the stricter choice
// for the tool. acorn runs on one thread, the tool on up to GOMAXPROCS; the
// _cpu ratios compare user+system time instead.
//
//	bench/jsapp_acorn.sh            (installs typescript@5.9.3 and acorn, then runs this)
//	go test -run '^$' -bench AnalyzeVsAcorn -benchtime 5x ./engine/jsapp/
func BenchmarkAnalyzeVsAcorn(b *testing.B) {
	node := testkit.Need(b, "node")
	acorn := acornDir(b)
	script, err := filepath.Abs(filepath.Join("..", "..", "bench", "acorn_parse.js"))
	if err != nil {
		b.Fatal(err)
	}
	root := benchTree(b)
	lim := benchLimits()
	noMain, mainRel := withoutMain(b, root, false)
	noMainFile, _ := withoutMain(b, root, true)
	trees := []*sideBySide{
		{name: "main", root: root, parse: true},
		{name: "nomain", root: noMain},
		{name: "nomainfile", root: noMainFile},
	}
	listDir := b.TempDir()
	ctx := context.Background()
	for _, t := range trees {
		var paths []string
		paths, t.srcs = selectedJS(b, t.root, lim)
		for _, s := range t.srcs {
			t.bytes += int64(len(s))
		}
		t.list = filepath.Join(listDir, t.name+".list")
		if err := os.WriteFile(t.list, []byte(strings.Join(paths, "\n")+"\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		r, err := Analyze(ctx, Request{InputPath: t.root, Limits: lim}, nil)
		if err != nil {
			b.Fatal(err)
		}
		st := r.Statistics
		if len(st.TruncatedScopes) > 0 || st.OmittedTextFiles > 0 || st.ParsedJavaScriptFiles+st.ParseFailures+st.ScannedJavaScriptFiles != int64(len(paths)) {
			b.Fatalf("%s: the tool must see every selected file: %+v (want %d files)", t.name, st, len(paths))
		}
		if (st.ParsedJavaScriptFiles+st.ParseFailures > 0) != t.parse {
			b.Fatalf("%s: the tool parsed %d files; want parsing %v", t.name, st.ParsedJavaScriptFiles+st.ParseFailures, t.parse)
		}
		t.parsed, t.scanned, t.failed = st.ParsedJavaScriptFiles, st.ScannedJavaScriptFiles, st.ParseFailures
		rel := make([]string, len(paths))
		for i, p := range paths {
			rel[i], _ = filepath.Rel(t.root, p)
		}
		b.Logf("%s: %d selected files, %.1f MB: %s", t.name, len(paths), float64(t.bytes)/1e6, strings.Join(rel, " "))
	}
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range trees {
			a := runAcorn(b, node, script, acorn, t.list)
			if a.Files != len(t.srcs) || a.Bytes != t.bytes {
				b.Fatalf("%s: acorn read %d files, %d bytes; want %d, %d", t.name, a.Files, a.Bytes, len(t.srcs), t.bytes)
			}
			for _, p := range a.Passes {
				if p.Failures > 0 {
					b.Fatalf("%s: acorn failed to parse %d files", t.name, p.Failures)
				}
			}
			t.acorn = append(t.acorn, a)
			t.acornVersion = a.Version

			c0, t0 := cpuTime(b), time.Now()
			if _, err := Analyze(ctx, Request{InputPath: t.root, Limits: lim}, nil); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			t.analyze = append(t.analyze, time.Since(t0))
			t.analyzeCPU = append(t.analyzeCPU, cpuTime(b)-c0)

			c0, t0 = cpuTime(b), time.Now()
			for _, s := range t.srcs {
				tokenizeAll(s)
			}
			runtime.GC()
			t.tokenize = append(t.tokenize, time.Since(t0))
			t.tokenizeCPU = append(t.tokenizeCPU, cpuTime(b)-c0)
		}
	}
	b.StopTimer()
	for _, t := range trees {
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		var (
			analyze, analyzeCPU, tokenize, tokenizeCPU, cold, warm, process, coldCPU []float64
			rAcorn, rAcornCPU, rWarm, rProcess, rTok, rTokCPU, rAcornTok             []float64
		)
		for i, a := range t.acorn {
			an, anCPU := ms(t.analyze[i]), ms(t.analyzeCPU[i])
			tok, tokCPU := ms(t.tokenize[i]), ms(t.tokenizeCPU[i])
			analyze, analyzeCPU, tokenize, tokenizeCPU = append(analyze, an), append(analyzeCPU, anCPU), append(tokenize, tok), append(tokenizeCPU, tokCPU)
			cold, warm, process, coldCPU = append(cold, a.Passes[0].ParseMS), append(warm, a.Passes[1].ParseMS), append(process, ms(a.wall)), append(coldCPU, a.Passes[0].CPUMS)
			rAcorn = append(rAcorn, an/a.Passes[0].ParseMS)
			rAcornCPU = append(rAcornCPU, anCPU/a.Passes[0].CPUMS)
			rWarm = append(rWarm, an/a.Passes[1].ParseMS)
			rProcess = append(rProcess, an/ms(a.wall))
			rTok = append(rTok, an/tok)
			rTokCPU = append(rTokCPU, anCPU/tokCPU)
			rAcornTok = append(rAcornTok, a.Passes[0].ParseMS/tok)
		}
		report := func(unit string, v []float64, both bool) {
			lo, med := minMedian(v)
			if both {
				b.ReportMetric(lo, t.name+"_"+unit+"_min")
			}
			b.ReportMetric(med, t.name+"_"+unit+"_med")
		}
		report("analyze/acorn", rAcorn, true)
		report("analyze/acorn_cpu", rAcornCPU, false)
		report("analyze/tokenize", rTok, false)
		report("acorn/tokenize", rAcornTok, false)
		line := func(what string, v []float64) string {
			lo, med := minMedian(v)
			return fmt.Sprintf("\n  %-34s min %9.3f  median %9.3f", what, lo, med)
		}
		b.Logf("%s: %d files, %.1f MB (the tool parsed %d, scanned %d, %d parse failures; acorn %s; main entry %s), %d rounds:%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s",
			t.name, len(t.srcs), float64(t.bytes)/1e6, t.parsed, t.scanned, t.failed, t.acornVersion, filepath.ToSlash(mainRel), len(t.acorn),
			line("analyze wall ms", analyze), line("analyze cpu ms", analyzeCPU),
			line("acorn parse ms (cold, pass 1)", cold), line("acorn parse cpu ms (pass 1)", coldCPU),
			line("acorn parse ms (warm, pass 2)", warm), line("acorn whole process ms", process),
			line("tokenizeAll wall ms", tokenize), line("tokenizeAll cpu ms", tokenizeCPU),
			line("analyze / acorn (cold)", rAcorn), line("analyze / acorn cpu", rAcornCPU),
			line("analyze / acorn (warm)", rWarm), line("analyze / acorn whole process", rProcess),
			line("analyze / tokenizeAll", rTok), line("analyze / tokenizeAll cpu", rTokCPU),
			line("acorn (cold) / tokenizeAll", rAcornTok))
	}
}

// minMedian returns the smallest and the median of v (the lower median of
// an even count).
func minMedian(v []float64) (float64, float64) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[0], s[(len(s)-1)/2]
}
