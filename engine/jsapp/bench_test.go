package jsapp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
)

var (
	benchOnce sync.Once
	benchRoot string
	benchErr  string
)

// benchTree is a large real JavaScript tree: REA_JSAPP_BENCH_TREE, or the
// typescript@5 package that npm installs once into the temp directory.
func benchTree(b *testing.B) string {
	benchOnce.Do(func() {
		if p := os.Getenv("REA_JSAPP_BENCH_TREE"); p != "" {
			benchRoot = p
			return
		}
		dir := filepath.Join(os.TempDir(), "rea-jsapp-bench")
		root := filepath.Join(dir, "node_modules", "typescript")
		if _, err := os.Stat(filepath.Join(root, "package.json")); err == nil {
			benchRoot = root
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			benchErr = "npm is not installed; set REA_JSAPP_BENCH_TREE to a large JavaScript tree"
			return
		}
		if out, err := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir, "typescript@5").CombinedOutput(); err != nil {
			benchErr = "npm install typescript@5: " + err.Error() + ": " + string(out)
			return
		}
		benchRoot = root
	})
	if benchRoot == "" {
		skipOrFail(b, benchErr)
	}
	r, err := filepath.EvalSymlinks(benchRoot)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func benchLimits() Limits {
	l := DefaultLimits()
	l.MaxEntries = 1000000
	l.MaxTextFiles = 100000
	l.MaxTextFileBytes = 67108864
	l.MaxTotalTextBytes = 536870912
	l.MaxASTNodes = 20000000
	l.MaxFindings = 100000
	l.MaxParseMilliseconds = 600000
	return l
}

// benchFiles lists the JavaScript files the analyzer parses in root.
func benchFiles(b *testing.B, root string) [][]byte {
	var files [][]byte
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && d.Name() == "node_modules" && rel != "." {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && isJS(rel) {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, src)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

func tokenize(src []byte) {
	l := js.NewLexer(parse.NewInputBytes(src))
	for {
		if tt, _ := l.Next(); tt == js.ErrorToken {
			return
		}
	}
}

// BenchmarkAnalyzeVsTokenize runs, in one process and interleaved, the whole
// analysis of a large tree (inventory with hashing, parse, walk, link) and
// bare tdewolff/parse tokenization of the same JavaScript files, and reports
// both throughputs and their ratio.
//
//	go test -run '^$' -bench AnalyzeVsTokenize -benchtime 5x ./engine/jsapp/
func BenchmarkAnalyzeVsTokenize(b *testing.B) {
	root := benchTree(b)
	files := benchFiles(b, root)
	var jsBytes int64
	for _, f := range files {
		jsBytes += int64(len(f))
	}
	req := Request{InputPath: root, Limits: benchLimits()}
	r, err := Analyze(context.Background(), req, nil)
	if err != nil {
		b.Fatal(err)
	}
	if st := r.Statistics; len(st.TruncatedScopes) > 0 || st.ParsedJavaScriptFiles+st.ParseFailures != int64(len(files)) {
		b.Fatalf("the analysis must see every file: %+v (want %d files)", r.Statistics, len(files))
	}
	var tAnalyze, tTokenize, tParse time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, f := range files {
			tokenize(f)
		}
		t1 := time.Now()
		for _, f := range files {
			js.Parse(parse.NewInputBytes(f), js.Options{}) // failures cost time too
		}
		t2 := time.Now()
		if _, err := Analyze(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
		tTokenize += t1.Sub(t0)
		tParse += t2.Sub(t1)
		tAnalyze += time.Since(t2)
	}
	mb := float64(jsBytes) * float64(b.N) / 1e6
	b.ReportMetric(mb/tAnalyze.Seconds(), "analyze_MB/s")
	b.ReportMetric(mb/tTokenize.Seconds(), "tokenize_MB/s")
	b.ReportMetric(mb/tParse.Seconds(), "parse_MB/s")
	b.ReportMetric(tAnalyze.Seconds()/tTokenize.Seconds(), "analyze/tokenize")
	b.ReportMetric(tAnalyze.Seconds()/tParse.Seconds(), "analyze/parse")
	b.Logf("%s: %d JavaScript files (%d parse failures), %.1f MB, %d AST nodes, %d entries",
		strings.TrimPrefix(root, os.TempDir()), len(files), r.Statistics.ParseFailures, float64(jsBytes)/1e6, r.Statistics.VisitedASTNodes, r.Statistics.Entries)
}
