package tools_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// rawConn speaks newline-delimited JSON-RPC to a real `rea mcp` subprocess.
// Writes are serialized, so a reader goroutine may answer the server's own
// requests while another goroutine pipelines.
type rawConn struct {
	t     testing.TB
	cmd   *exec.Cmd
	wmu   sync.Mutex
	stdin io.WriteCloser
	lines *bufio.Reader
}

// startRaw starts `rea mcp` on a fresh ledger with env added to the test's
// environment; the process is killed when the test ends or after limit.
func startRaw(t testing.TB, limit time.Duration, env ...string) *rawConn {
	t.Helper()
	cmd, stdin, stdout := startRawStdioEnv(t, append([]string{}, env...), "--ledger", filepath.Join(t.TempDir(), "ledger.db"), "mcp")
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	t.Cleanup(func() {
		timer.Stop()
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return &rawConn{t: t, cmd: cmd, stdin: stdin, lines: bufio.NewReaderSize(stdout, 1<<20)}
}

func (c *rawConn) send(msg string) {
	if err := c.write(msg + "\n"); err != nil {
		c.t.Errorf("writing to rea mcp: %v", err)
	}
}

// write writes s as it is; goroutines that may outlive a failed test use
// it instead of send.
func (c *rawConn) write(s string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := io.WriteString(c.stdin, s)
	return err
}

// next returns the next message; it fails the test when the server ends
// (or was killed by the time limit) first.
func (c *rawConn) next() []byte {
	line, err := c.lines.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("reading from rea mcp (killed after its time limit?): %v", err)
	}
	return line
}

// initialize performs the handshake with the given client capabilities.
func (c *rawConn) initialize(capabilities string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` +
		capabilities + `,"clientInfo":{"name":"raw","version":"1"}}}`)
	if line := c.next(); !strings.Contains(string(line), `"result"`) {
		c.t.Fatalf("initialize: %s", line)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params map[string]any  `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeRaw(t testing.TB, line []byte) rawMessage {
	t.Helper()
	var m rawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %v: %.300s", err, line)
	}
	return m
}

// TestStdioTerminalProgressIsTheWork opens the stripped Debian gdb with a
// progress token: the terminal update's progress and total are the request's
// whole work — every byte hashed, every selection candidate evaluated and
// the completion step (CONTRACTS.md §0, §6.1) — not the last intermediate
// value plus one (it was 9,437,185 for gdb's 10,395,104 bytes: the final
// partial chunk of the hash was never reported).
func TestStdioTerminalProgressIsTheWork(t *testing.T) {
	const gdb = "/usr/bin/gdb"
	fi, err := os.Stat(gdb)
	if err != nil {
		testkit.SkipOrFail(t, "the Debian gdb binary is not installed: "+err.Error())
		return
	}
	c := startRaw(t, 2*time.Minute)
	c.initialize(`{}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open_binary","arguments":{"path":"` + gdb +
		`"},"_meta":{"progressToken":"open"}}}`)
	var updates []map[string]any
	for {
		m := decodeRaw(t, c.next())
		if m.Method == "notifications/progress" {
			updates = append(updates, m.Params)
			continue
		}
		if string(m.ID) == "1" {
			if m.Result == nil || strings.Contains(string(m.Result), `"isError":true`) {
				t.Fatalf("open_binary: %s", m.Result)
			}
			break
		}
	}
	if len(updates) < 2 {
		t.Fatalf("progress updates: %v", updates)
	}
	last := updates[len(updates)-1]
	p, _ := last["progress"].(float64)
	total, _ := last["total"].(float64)
	t.Logf("size %d, terminal %v, %d updates", fi.Size(), last, len(updates))
	if last["message"] != "open_binary: completed" || p != total {
		t.Fatalf("terminal update %v: progress and total must both be the whole work", last)
	}
	// Units: every byte hashed, the selection's candidates (a handful), and
	// the completion step.
	if work := p - float64(fi.Size()) - 1; work < 1 || work > 16 {
		t.Fatalf("terminal progress %v for %d bytes hashed: %v units are not the selection's candidates", p, fi.Size(), work)
	}
	for _, u := range updates[:len(updates)-1] {
		if q, _ := u["progress"].(float64); q >= p {
			t.Fatalf("intermediate update %v is not below the terminal %v", u, p)
		}
	}
}

// TestStdioRequestIDs: ids are echoed byte-exactly, integers beyond 2^53
// and beyond 64 bits included (encoding/json's float64 turned
// 9007199254740993 into 9007199254740992); ids that are not a string or an
// integer, and null, are Invalid Request (-32600) answered with id null; a
// second initialize on the connection is refused with -32600; and a
// cancellation names a big id exactly.
func TestStdioRequestIDs(t *testing.T) {
	big := compileFixture(t, t.TempDir())
	if err := os.Truncate(big, 4<<30); err != nil {
		t.Fatal(err)
	}
	c := startRaw(t, 2*time.Minute)
	c.initialize(`{}`)
	// answer reads up to the answer with the given raw id.
	answer := func(id string) rawMessage {
		t.Helper()
		for {
			m := decodeRaw(t, c.next())
			if m.Method == "" && string(m.ID) == id {
				return m
			}
			if m.Method == "" {
				t.Fatalf("answer with id %s while waiting for %s (%+v)", m.ID, id, m)
			}
		}
	}
	for _, id := range []string{"9007199254740993", "-9007199254740993", "123456789012345678901234567890", "18446744073709551617",
		"0", "7", `"s\u0041<&>"`, `"\ud83d\ude00"`, `"plain"`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"binary_session","arguments":{}}}`)
		if m := answer(id); m.Result == nil {
			t.Errorf("tools/call with id %s: %+v", id, m)
		}
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if m := answer(id); m.Result == nil {
			t.Errorf("ping with id %s: %+v", id, m)
		}
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"no/such/method"}`)
		if m := answer(id); m.Error == nil || m.Error.Code != -32601 {
			t.Errorf("unknown method with id %s: %+v", id, m)
		}
	}
	for _, id := range []string{"true", "false", "null", `{"a":1}`, "[1]", "[]", "1.5", "1.0", "1e3", "-0.5"} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		m := answer("null")
		if m.Error == nil || m.Error.Code != -32600 {
			t.Errorf("id %s: %+v, want -32600 with id null", id, m)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":"again","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := answer(`"again"`); m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("second initialize: %+v, want -32600", m)
	}
	// Still one connection, still serving.
	c.send(`{"jsonrpc":"2.0","id":9007199254740995,"method":"ping"}`)
	if m := answer("9007199254740995"); m.Result == nil {
		t.Fatalf("ping after the refused initialize: %+v", m)
	}
	// A cancellation naming a big id reaches that request: the open of a
	// 4 GiB file ends cancelled instead of hashing to the end.
	c.send(`{"jsonrpc":"2.0","id":9007199254740997,"method":"tools/call","params":{"name":"open_binary","arguments":{"path":` + mustJSON(t, big) + `},"_meta":{"progressToken":"big"}}}`)
	for {
		m := decodeRaw(t, c.next())
		if m.Method == "notifications/progress" {
			if msg, _ := m.Params["message"].(string); strings.HasPrefix(msg, "hash:") || strings.HasPrefix(msg, "open_binary:") {
				break
			}
			continue
		}
		t.Fatalf("before the open's progress: %+v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740997,"reason":"test"}}`)
	m := answer("9007199254740997")
	if !strings.Contains(string(m.Result), `"code":"cancelled"`) {
		t.Fatalf("cancelled open: %s", m.Result)
	}
}

// vmHWM returns the peak resident set size of a process, in bytes.
func vmHWM(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// TestStdioBurstMemoryIsBounded pipelines 10,000 requests (2,000 under
// -short: each is a full list_procedures call) at `rea mcp`
// while reading the answers: with at most 64 requests in flight and the
// rest left unread in the pipe (CONTRACTS.md §0), the server's peak RSS
// stays flat (it was 287 MB: every request had its own goroutine and
// buffers), and every request is answered.
func TestStdioBurstMemoryIsBounded(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		testkit.SkipOrFail(t, "no /proc to read the peak RSS from: "+err.Error())
		return
	}
	n := 10000
	if testing.Short() {
		// Still 30 times the 64 in flight, but not the burst that told the
		// old server's 287 MB from a flat peak: the full run keeps that.
		n = 2000
	}
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	c := startRaw(t, 5*time.Minute)
	c.initialize(`{}`)
	c.send(`{"jsonrpc":"2.0","id":"open","method":"tools/call","params":{"name":"open_binary","arguments":{"path":` + mustJSON(t, fixture) + `}}}`)
	for {
		m := decodeRaw(t, c.next())
		if m.Method != "" {
			continue // list_changed
		}
		if string(m.ID) != `"open"` || m.Result == nil {
			t.Fatalf("open_binary: %+v", m)
		}
		break
	}
	before := vmHWM(t, c.cmd.Process.Pid)
	go func() {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_procedures","arguments":{"limit":100}}}`+"\n", i)
			if b.Len() > 64<<10 || i == n-1 {
				if c.write(b.String()) != nil {
					return
				}
				b.Reset()
			}
		}
	}()
	seen := make([]bool, n)
	for answered := 0; answered < n; {
		m := decodeRaw(t, c.next())
		if m.Method != "" {
			continue
		}
		answered++
		var id int
		if err := json.Unmarshal(m.ID, &id); err != nil || id < 0 || id >= n || seen[id] || m.Result == nil {
			t.Fatalf("answer %s: %.300s", m.ID, m.Result)
		}
		seen[id] = true
	}
	peak := vmHWM(t, c.cmd.Process.Pid)
	t.Logf("peak RSS %d MB before the burst, %d MB after %d pipelined requests", before>>20, peak>>20, n)
	if peak > 100<<20 {
		t.Fatalf("peak RSS %d MB under a burst of %d requests, want < 100 MB", peak>>20, n)
	}
}

// TestStdioElicitationBeyondTheBound pipelines 200 captures that each ask
// the client (elicitation) before answering — more than the 64 requests
// allowed in flight. The client answers each question as it arrives; the
// answers come through the same read loop the bound stops, so a request
// waiting for its answer must not hold a slot, or 64 waiting requests
// would stop the loop before their answers (a deadlock, ended here by the
// time limit).
func TestStdioElicitationBeyondTheBound(t *testing.T) {
	const n = 200
	root := t.TempDir()
	c := startRaw(t, 2*time.Minute, "REA_PROCESS_CAPTURE_ENABLED=true",
		"REA_PROCESS_WORKING_ROOTS_JSON="+mustJSON(t, []string{root}),
		"REA_PROCESS_EXECUTABLE_ROOTS_JSON="+mustJSON(t, []string{"/usr/bin", "/bin"}))
	c.initialize(`{"elicitation":{"form":{}}}`)
	args := mustJSON(t, map[string]any{"executable": "/bin/sh", "arguments": []string{"-c", "true"}, "working_directory": root, "timeout_ms": 20000})
	go func() {
		for i := range n {
			if c.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"capture_process_scenario","arguments":%s}}`+"\n", i, args)) != nil {
				return
			}
		}
	}()
	asked := 0
	for answered := 0; answered < n; {
		m := decodeRaw(t, c.next())
		switch {
		case m.Method == "elicitation/create":
			asked++
			c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"decline"}}`)
		case m.Method != "":
		case strings.Contains(string(m.Result), `"code":"permission_required"`):
			answered++
		default:
			t.Fatalf("answer %s: %.300s", m.ID, m.Result)
		}
	}
	if asked != n {
		t.Fatalf("%d questions for %d declined captures", asked, n)
	}
}
