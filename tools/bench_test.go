package tools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rea-re/rea/ledger"
)

// BenchmarkStdioRoundTrip compares a binary_session round trip with a trivial
// echo tool on the same server, over the stdio framing (the server's
// ServeStdio on pipes; no process start in the loop).
func BenchmarkStdioRoundTrip(b *testing.B) {
	p := newInProcessServer(b, filepath.Join(b.TempDir(), "ledger.db"))
	echo := mcp.NewTool("echo", mcp.WithString("text"))
	p.srv.MCP().AddTool(echo, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.srv.ServeStdio(ctx, toServerR, fromServerW)
	c := client.NewClient(transport.NewIO(fromServerR, toServerW, io.NopCloser(&emptyReader{})))
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	s := initialize(b, c)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"echo", map[string]any{"text": "hello"}},
		{"binary_session", map[string]any{}},
	} {
		s.ok(tc.name, tc.args) // validated once; the loop measures the round trip alone
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tc.name, tc.args
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
					b.Fatalf("%s: %v", tc.name, err)
				}
			}
		})
	}
}

type emptyReader struct{}

func (*emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

// BenchmarkSubprocessRoundTrip measures round trips to a real `rea mcp`
// process over its stdin/stdout: binary_session against close_binary with
// nothing open, REA's most trivial tool (its whole answer is
// {"closed":false,"run_id":null}).
func BenchmarkSubprocessRoundTrip(b *testing.B) {
	s := startStdio(b, filepath.Join(b.TempDir(), "ledger.db"))
	ctx := context.Background()
	for _, name := range []string{"close_binary", "binary_session"} {
		s.ok(name, map[string]any{})
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, map[string]any{}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if res, err := s.c.CallTool(ctx, req); err != nil || res.IsError {
					b.Fatalf("%s: %v", name, err)
				}
			}
		})
	}
}

// BenchmarkMCPProcedurePaging is issue 3's MCP figure: over a real `rea mcp`
// subprocess, open REA_BENCH_FILE (default /usr/bin/node) and fetch every
// page of list_procedures at the default page size, each page recorded as
// Evidence. Compare with sha256sum + nm on the same file (bench/compare.sh).
func BenchmarkMCPProcedurePaging(b *testing.B) {
	path := benchFile(b)
	for b.Loop() {
		b.StopTimer()
		s := startStdio(b, filepath.Join(b.TempDir(), "ledger.db"))
		b.StartTimer()
		b.ReportMetric(float64(pageAllProcedures(b, s, path)), "pages")
		b.StopTimer()
		s.c.Close()
		b.StartTimer()
	}
}

// BenchmarkMCPProcedurePagingInProcess is the same conversation with the
// server in the benchmark's process (over pipes), so that -cpuprofile sees
// both sides.
func BenchmarkMCPProcedurePagingInProcess(b *testing.B) {
	path := benchFile(b)
	for b.Loop() {
		b.StopTimer()
		p := newInProcessServer(b, filepath.Join(b.TempDir(), "ledger.db"))
		toServerR, toServerW := io.Pipe()
		fromServerR, fromServerW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		go p.srv.ServeStdio(ctx, toServerR, fromServerW)
		c := client.NewClient(transport.NewIO(fromServerR, toServerW, io.NopCloser(&emptyReader{})))
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		s := initialize(b, c)
		b.StartTimer()
		b.ReportMetric(float64(pageAllProcedures(b, s, path)), "pages")
		b.StopTimer()
		cancel()
		b.StartTimer()
	}
}

func benchFile(b *testing.B) string {
	path := os.Getenv("REA_BENCH_FILE")
	if path == "" {
		path = "/usr/bin/node"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no benchmark file: %v (set REA_BENCH_FILE)", err)
	}
	return path
}

// pageAllProcedures opens path and reads every list_procedures page at the
// default size, as a client would; it returns the number of calls made.
func pageAllProcedures(b *testing.B, s *session, path string) int {
	ctx := context.Background()
	s.ok("open_binary", map[string]any{"path": path})
	calls := 1
	for offset := 0; ; calls++ {
		req := mcp.CallToolRequest{}
		args := map[string]any{"offset": offset}
		if limit, _ := strconv.Atoi(os.Getenv("REA_BENCH_PAGE_LIMIT")); limit > 0 {
			args["limit"] = limit
		}
		req.Params.Name, req.Params.Arguments = "list_procedures", args
		res, err := s.c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("page at %d: %v", offset, err)
		}
		var page struct {
			Result struct {
				NextOffset *int `json:"next_offset"`
			} `json:"result"`
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &page); err != nil {
			b.Fatal(err)
		}
		if page.Result.NextOffset == nil {
			return calls
		}
		offset = *page.Result.NextOffset
	}
}

// BenchmarkMCPProcedurePagingLeanClient is the same conversation over a real
// `rea mcp` with a minimal JSON-RPC client that reads only what it needs
// (next_offset) from each answer: the mcp-go client decodes every answer
// twice (text and structuredContent, into generic maps), which is the
// client's cost, not the server's.
//
// Before each iteration it runs the baseline the issue compares with,
// sha256sum and nm (nm -D for a shared library), and reports the ratio of
// the two totals as x-baseline: the disk's flush latency moves the MCP
// figure much more than the baseline, so only a ratio measured in the same
// moments means anything.
func BenchmarkMCPProcedurePagingLeanClient(b *testing.B) {
	benchLeanPaging(b, 1)
}

// BenchmarkMCPProcedurePagingLeanClientPipelined is the lean client keeping
// up to REA_BENCH_PIPELINE (default 16) list_procedures requests in flight
// on the one connection, as a client reading a whole listing may: it reads
// that many ranges of the listing side by side (leanPagesPipelined), so
// every procedure is read exactly once (checked). Each page is still one
// Evidence publication (checked in the ledger), answered only once durable;
// concurrent publications share commits (ledger group commit).
func BenchmarkMCPProcedurePagingLeanClientPipelined(b *testing.B) {
	depth, _ := strconv.Atoi(os.Getenv("REA_BENCH_PIPELINE"))
	if depth <= 0 {
		depth = 16
	}
	benchLeanPaging(b, depth)
}

// leanConn is a minimal JSON-RPC client over a `rea mcp` subprocess.
type leanConn struct {
	b     *testing.B
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Reader
	id    int
}

func startLean(b *testing.B, args ...string) *leanConn {
	cmd, stdin, stdout := startRawStdio(b, args...)
	return initLean(b, &leanConn{b: b, cmd: cmd, stdin: stdin, lines: bufio.NewReaderSize(stdout, 1<<20)})
}

// startLeanInProcess is startLean with the server in the benchmark's
// process, over pipes, so that go test's -cpuprofile and -trace see it.
func startLeanInProcess(b *testing.B, ledgerPath string) *leanConn {
	p := newInProcessServer(b, ledgerPath)
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go p.srv.ServeStdio(ctx, toServerR, fromServerW)
	return initLean(b, &leanConn{b: b, stdin: toServerW, lines: bufio.NewReaderSize(fromServerR, 1<<20)})
}

func initLean(b *testing.B, c *leanConn) *leanConn {
	stdin := c.stdin
	c.rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "lean", "version": "1"}})
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		b.Fatal(err)
	}
	return c
}

// send writes a request and returns its id.
func (c *leanConn) send(method string, params any) int {
	c.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.stdin.Write(append(req, '\n')); err != nil {
		c.b.Fatal(err)
	}
	return c.id
}

// answer reads lines up to the next response (notifications are skipped).
func (c *leanConn) answer() []byte {
	for {
		line, err := c.lines.ReadBytes('\n')
		if err != nil {
			c.b.Fatal(err)
		}
		if bytes.Contains(line[:min(len(line), 64)], []byte(`"id":`)) {
			return line
		}
	}
}

func (c *leanConn) rpc(method string, params any) []byte {
	c.send(method, params)
	return c.answer()
}

func (c *leanConn) close() {
	c.stdin.Close()
	if c.cmd != nil { // nil: a server in the benchmark's process (startLeanInProcess)
		c.cmd.Wait()
	}
}

// leanPage is the part of a list_procedures answer the lean clients read.
type leanPage struct {
	ID     int `json:"id"`
	Result struct {
		IsError    bool `json:"isError"`
		Structured struct {
			Result struct {
				Items []struct {
					Address string `json:"address"`
				} `json:"items"`
				Total      *int `json:"total"`
				NextOffset *int `json:"next_offset"`
			} `json:"result"`
		} `json:"structuredContent"`
	} `json:"result"`
}

func benchLeanPaging(b *testing.B, depth int) {
	path := benchFile(b)
	// REA_BENCH_PAGE_LIMIT pages at another size than the default (100).
	limit, _ := strconv.Atoi(os.Getenv("REA_BENCH_PAGE_LIMIT"))
	var baseline, serverCPU time.Duration
	for b.Loop() {
		b.StopTimer()
		baseline += sha256sumAndNM(b, path)
		ledgerPath := filepath.Join(b.TempDir(), "ledger.db")
		args := []string{"--ledger", ledgerPath, "mcp"}
		// REA_BENCH_SERVER_CPUPROFILE profiles the server process (the last
		// iteration's profile is the one left in the file).
		if p := os.Getenv("REA_BENCH_SERVER_CPUPROFILE"); p != "" {
			args = append([]string{"--cpuprofile", p}, args...)
		}
		c := startLean(b, args...)
		b.StartTimer()
		c.rpc("tools/call", map[string]any{"name": "open_binary", "arguments": map[string]any{"path": path}})
		var pages int
		if depth <= 1 {
			pages = leanPagesSequential(b, c, limit)
		} else {
			pages = leanPagesPipelined(b, c, limit, depth)
		}
		b.ReportMetric(float64(pages), "pages")
		b.StopTimer()
		c.close()
		serverCPU += c.cmd.ProcessState.UserTime() + c.cmd.ProcessState.SystemTime()
		if n := listProcedurePublications(b, ledgerPath); n != pages {
			b.Fatalf("%d list_procedures answers but %d Evidence publications", pages, n)
		}
		b.StartTimer()
	}
	if baseline > 0 {
		b.ReportMetric(float64(b.Elapsed())/float64(baseline), "x-baseline")
	}
	// The server's CPU time (the whole process, the connection's start and
	// end included), to read the wall time against: the client and the
	// server share the machine's cores.
	b.ReportMetric(float64(serverCPU.Milliseconds())/float64(b.N), "server-cpu-ms/op")
}

func leanPageArgs(offset, limit int) map[string]any {
	args := map[string]any{"offset": offset}
	if limit > 0 {
		args["limit"] = limit
	}
	return map[string]any{"name": "list_procedures", "arguments": args}
}

func decodeLeanPage(b *testing.B, line []byte) *leanPage {
	var p leanPage
	if err := json.Unmarshal(line, &p); err != nil || p.Result.IsError {
		b.Fatalf("page: %v %.300s", err, line)
	}
	return &p
}

// leanPagesSequential follows next_offset one page at a time.
func leanPagesSequential(b *testing.B, c *leanConn, limit int) int {
	pages := 0
	for offset := 0; ; {
		line := c.rpc("tools/call", leanPageArgs(offset, limit))
		var answer struct {
			Result struct {
				IsError    bool `json:"isError"`
				Structured struct {
					Result struct {
						NextOffset *int `json:"next_offset"`
					} `json:"result"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &answer); err != nil || answer.Result.IsError {
			b.Fatalf("page at %d: %v %.200s", offset, err, line)
		}
		pages++
		if answer.Result.Structured.Result.NextOffset == nil {
			return pages
		}
		offset = *answer.Result.Structured.Result.NextOffset
	}
}

// leanPagesPipelined reads the whole listing with up to depth requests in
// flight, as a client that knows the total may: after the first page it
// splits the rest into depth equal ranges and follows each range's
// next_offset on its own, one request in flight per range. Every procedure
// is read exactly once (checked), and a range costs at most one page more
// than a sequential read of it (its last page holds the range's rest).
// Following next_offset is what keeps the pages at the byte budget's size:
// a fixed grid of offsets would cut each range the budget shortens into two
// answers.
func leanPagesPipelined(b *testing.B, c *leanConn, limit, depth int) int {
	first := decodeLeanPage(b, c.rpc("tools/call", leanPageArgs(0, limit)))
	res := first.Result.Structured.Result
	if res.Total == nil {
		b.Fatal("list_procedures gives no total: cannot plan a pipelined read")
	}
	total := *res.Total
	pageLimit := limit
	if pageLimit <= 0 {
		pageLimit = 100 // the contract's default page (CONTRACTS.md §3)
	}
	seen := make(map[string]struct{}, total)
	read := func(p *leanPage) {
		for _, it := range p.Result.Structured.Result.Items {
			if _, dup := seen[it.Address]; dup {
				b.Fatalf("procedure %s read twice", it.Address)
			}
			seen[it.Address] = struct{}{}
		}
	}
	read(first)
	type span struct{ offset, end int } // a range's unread rest
	inFlight := map[int]span{}
	ask := func(s span) {
		args := leanPageArgs(s.offset, min(pageLimit, s.end-s.offset))
		if limit <= 0 && s.end-s.offset >= pageLimit {
			args = leanPageArgs(s.offset, 0) // the default, as the sequential client asks
		}
		inFlight[c.send("tools/call", args)] = s
	}
	rest := total - len(res.Items)
	for k := range depth {
		lo, hi := len(res.Items)+rest*k/depth, len(res.Items)+rest*(k+1)/depth
		if lo < hi {
			ask(span{lo, hi})
		}
	}
	pages := 1
	for len(inFlight) > 0 {
		p := decodeLeanPage(b, c.answer())
		s, ok := inFlight[p.ID]
		if !ok {
			b.Fatalf("answer to unknown request %d", p.ID)
		}
		delete(inFlight, p.ID)
		pages++
		read(p)
		r := p.Result.Structured.Result
		n := len(r.Items)
		if n == 0 {
			b.Fatalf("empty page at %d of range to %d", s.offset, s.end)
		}
		if s.offset+n < s.end {
			if r.NextOffset == nil || *r.NextOffset != s.offset+n {
				b.Fatalf("page at %d: %d items, next_offset %v, want %d", s.offset, n, r.NextOffset, s.offset+n)
			}
			ask(span{s.offset + n, s.end})
		}
	}
	if len(seen) != total {
		b.Fatalf("read %d procedures, total %d", len(seen), total)
	}
	return pages
}

// listProcedurePublications counts the list_procedures Evidence
// publications in the ledger at path.
func listProcedurePublications(b *testing.B, path string) int {
	l, err := ledger.OpenReadOnly(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var n int
	if err := l.ReadDB().QueryRow(`SELECT count(*) FROM events WHERE type = 'evidence_recorded'
		AND json_extract(data, '$.operation') = 'list_procedures'`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// sha256sumAndNM times `sha256sum path; nm path` (nm -D for a .so), or
// returns 0 when either tool is missing.
func sha256sumAndNM(b *testing.B, path string) time.Duration {
	nmArgs := []string{path}
	if strings.Contains(filepath.Base(path), ".so") {
		nmArgs = []string{"-D", path}
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	start := time.Now()
	for _, c := range []*exec.Cmd{exec.Command("sha256sum", path), exec.Command("nm", nmArgs...)} {
		c.Stdout = devNull // as a shell's >/dev/null: no pipe for nm's megabytes of output
		if err := c.Run(); err != nil {
			b.Logf("baseline %s: %v (no x-baseline reported)", c.Path, err)
			return 0
		}
	}
	return time.Since(start)
}

// BenchmarkCallGraphSSH is one get_call_graph answer over in-process MCP on
// Debian's ssh (REA_BENCH_FILE for another file), from main: depth 1, and
// every page of depth 2 (max_nodes 5000), each page recomputing the walk.
func BenchmarkCallGraphSSH(b *testing.B) {
	path := os.Getenv("REA_BENCH_FILE")
	if path == "" {
		path = "/usr/bin/ssh"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s: %v", path, err)
	}
	s := startInProcess(b, newInProcessServer(b, filepath.Join(b.TempDir(), "ledger.db")))
	s.ok("open_binary", map[string]any{"path": path})
	s.ok("get_call_graph", map[string]any{"procedure": "main", "depth": 2, "max_nodes": 5000}) // indexes built
	for _, depth := range []int{1, 2} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			pages, bytes := 0, 0
			for b.Loop() {
				for offset := 0; ; pages++ {
					r := s.ok("get_call_graph", map[string]any{"procedure": "main", "depth": depth, "max_nodes": 5000, "offset": offset})
					bytes += len(r.Text)
					g := result[struct {
						NextOffset *int `json:"next_offset"`
					}](b, r)
					if g.NextOffset == nil {
						pages++
						break
					}
					offset = *g.NextOffset
				}
			}
			b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
			b.ReportMetric(float64(bytes)/float64(b.N), "bytes/op")
		})
	}
}
