package tools_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rea-re/rea/internal/testkit"
)

// Issue 14's performance figures (BENCHMARKS.md, "Session 7 / issue 14"),
// over real `rea mcp` subprocesses and the lean JSON-RPC client of
// bench_test.go, so that the server's memory is read from its own
// /proc/PID/status and no client decoding is timed.

// openTargetsDefault is a program and 15 Debian libraries of mixed size
// (0.1 MB to 110 MB, 234 MB in all on Debian 12).
var openTargetsDefault = []string{
	"/usr/bin/gdb",
	"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
	"/usr/lib/x86_64-linux-gnu/libclang-14.so.14.0.6",
	"/usr/lib/x86_64-linux-gnu/libz3.so.4",
	"/usr/lib/x86_64-linux-gnu/libx265.so.199",
	"/usr/lib/x86_64-linux-gnu/librsvg-2.so.2",
	"/usr/lib/x86_64-linux-gnu/libasan.so.8",
	"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/lib/x86_64-linux-gnu/libperl.so.5.36",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libxml2.so.2",
	"/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
	"/usr/lib/x86_64-linux-gnu/libssl.so.3",
	"/usr/lib/x86_64-linux-gnu/libz.so.1",
}

// openTargetsFiles is REA_BENCH_TARGETS (colon-separated) or the default
// set; the benchmark skips unless all of them can be read.
func openTargetsFiles(b *testing.B) []string {
	files := openTargetsDefault
	if env := os.Getenv("REA_BENCH_TARGETS"); env != "" {
		files = strings.Split(env, ":")
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			testkit.SkipOrFail(b, fmt.Sprintf("benchmark file missing (apt-get install -y gdb libllvm14 libclang-14 ...; or set REA_BENCH_TARGETS): %v", err))
		}
		warmPageCache(b, f)
	}
	return files
}

// warmPageCache reads path once, so that every contender hashes from memory.
func warmPageCache(b *testing.B, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOpenTargets opens the 16 files on one connection of a fresh
// `rea mcp` and, in the same iteration, each file alone on a fresh server
// of its own (alternately first and second, so that a change of the
// machine's load falls on both); x-sum is the one connection's wall time
// from the first request to the last answer over the sum of the lone opens'
// round trips (issue 14: at most 1.1). sequential waits for each answer
// before the next open; pipelined sends all 16 at once (the engine
// serializes them on the connection's transition lock). server-cpu-s is
// the one server's CPU time over its opens: on a shared machine, wall time
// far above it is waiting for the CPU or the disk.
//
// Memory is read from the one server's /proc/PID/status. rss-MiB/target is
// its VmRSS growth over the 16 opens, divided by 16, when the last answer
// arrives; peak-MiB/target its VmHWM, once the background symbol indexes
// the opens started are built (the server's CPU time stops moving), less its
// VmRSS before the first open, divided by 16. The memory sub-benchmark
// waits for that after each open and logs each target's growth.
func BenchmarkOpenTargets(b *testing.B) {
	files := openTargetsFiles(b)
	for _, mode := range []string{"sequential", "pipelined"} {
		b.Run(mode, func(b *testing.B) {
			var alone, together, cpu time.Duration
			var grown, peak float64
			i := 0
			for b.Loop() {
				lone := func() {
					each := make([]time.Duration, len(files))
					for k, f := range files {
						each[k] = openAlone(b, f)
						alone += each[k]
					}
					b.Logf("alone: %v", roundAll(each))
				}
				if i%2 == 0 {
					lone()
				}
				m := openTogether(b, files, mode == "pipelined")
				together += m.wall
				cpu += m.cpu
				grown += m.grown
				peak += m.peak
				if i%2 == 1 {
					lone()
				}
				i++
			}
			n, per := float64(b.N), float64(b.N*len(files))
			b.ReportMetric(float64(together)/float64(alone), "x-sum")
			b.ReportMetric(together.Seconds()/n, "together-s")
			b.ReportMetric(alone.Seconds()/n, "sum-alone-s")
			b.ReportMetric(cpu.Seconds()/n, "server-cpu-s")
			b.ReportMetric(grown/per, "rss-MiB/target")
			b.ReportMetric(peak/per, "peak-MiB/target")
		})
	}
	b.Run("memory", func(b *testing.B) {
		var rss, anon, peak float64
		first := true
		for b.Loop() {
			r, a, p := openSettled(b, files, first)
			rss, anon, peak, first = rss+r, anon+a, peak+p, false
		}
		per := float64(b.N * len(files))
		b.ReportMetric(rss/per, "rss-MiB/target")
		b.ReportMetric(anon/per, "anon-MiB/target")
		b.ReportMetric(peak/per, "peak-MiB/target")
	})
}

// openAlone is open_binary's round trip for path on a fresh server.
func openAlone(b *testing.B, path string) time.Duration {
	b.StopTimer()
	defer b.StartTimer()
	c := startLean(b, "--ledger", filepath.Join(b.TempDir(), "ledger.db"), "mcp")
	defer c.close()
	start := time.Now()
	openOK(b, c.rpc("tools/call", openArgs(path)))
	return time.Since(start)
}

// together is what openTogether measured.
type together struct {
	wall, cpu   time.Duration
	grown, peak float64 // MiB
}

// openTogether opens files on one fresh server.
func openTogether(b *testing.B, files []string, pipelined bool) together {
	b.StopTimer()
	defer b.StartTimer()
	c, pid := startBenchServer(b)
	defer c.close()
	before, ticks := procStatus(b, pid), cpuTicks(b, pid)
	ids := map[string]bool{}
	var arrivals []time.Duration
	start := time.Now()
	if pipelined {
		for _, f := range files {
			c.send("tools/call", openArgs(f))
		}
		for range files {
			ids[openOK(b, c.answer())] = true
			arrivals = append(arrivals, time.Since(start))
		}
	} else {
		for _, f := range files {
			ids[openOK(b, c.rpc("tools/call", openArgs(f)))] = true
			arrivals = append(arrivals, time.Since(start))
		}
	}
	m := together{wall: time.Since(start), cpu: time.Duration(cpuTicks(b, pid)-ticks) * time.Second / clockTicks}
	if len(ids) != len(files) {
		b.Fatalf("%d opens gave %d distinct target_ids", len(files), len(ids))
	}
	after := procStatus(b, pid)
	settle(b, pid)
	m.grown, m.peak = after["VmRSS"]-before["VmRSS"], procStatus(b, pid)["VmHWM"]-before["VmRSS"]
	b.Logf("answers at %v (server CPU %v)", roundAll(arrivals), m.cpu)
	return m
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTicks = 100

func roundAll(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, x := range d {
		out[i] = x.Round(time.Millisecond)
	}
	return out
}

// openSettled opens files one after another on a fresh server, waiting
// after each until its background work is done, and returns the growth of
// VmRSS, RssAnon and VmHWM over the whole sequence, logging each open's.
func openSettled(b *testing.B, files []string, logEach bool) (rss, anon, peak float64) {
	c, pid := startBenchServer(b)
	defer c.close()
	first := procStatus(b, pid)
	last := first
	for _, f := range files {
		openOK(b, c.rpc("tools/call", openArgs(f)))
		settle(b, pid)
		now := procStatus(b, pid)
		if logEach {
			b.Logf("%-48s %6.1f MiB: RSS %+6.1f MiB (anon %+6.1f, file %+6.1f), peak %+6.1f MiB", filepath.Base(f), mib(fileSize(b, f)),
				now["VmRSS"]-last["VmRSS"], now["RssAnon"]-last["RssAnon"], now["RssFile"]-last["RssFile"], now["VmHWM"]-last["VmHWM"])
		}
		last = now
	}
	if logEach {
		b.Logf("server before the opens: RSS %.1f MiB (anon %.1f); after: RSS %.1f MiB (anon %.1f, file %.1f), peak %.1f MiB",
			first["VmRSS"], first["RssAnon"], last["VmRSS"], last["RssAnon"], last["RssFile"], last["VmHWM"])
	}
	return last["VmRSS"] - first["VmRSS"], last["RssAnon"] - first["RssAnon"], last["VmHWM"] - first["VmRSS"]
}

// startBenchServer starts the measured server on a fresh ledger and returns
// the connection and the pid whose /proc status and CPU time are the
// server's: a `rea mcp` subprocess (REA_BENCH_SERVER_CPUPROFILE=FILE
// profiles it), or with REA_BENCH_INPROCESS=1 a server in this process, for
// go test's -trace and -cpuprofile (its memory figures then include the
// benchmark's own).
func startBenchServer(b *testing.B) (*leanConn, int) {
	ledgerPath := filepath.Join(b.TempDir(), "ledger.db")
	if os.Getenv("REA_BENCH_INPROCESS") == "1" {
		return startLeanInProcess(b, ledgerPath), os.Getpid()
	}
	args := []string{"--ledger", ledgerPath, "mcp"}
	if p := os.Getenv("REA_BENCH_SERVER_CPUPROFILE"); p != "" {
		args = append([]string{"--cpuprofile", p}, args...)
	}
	c := startLean(b, args...)
	return c, c.cmd.Process.Pid
}

func openArgs(path string) map[string]any {
	return map[string]any{"name": "open_binary", "arguments": map[string]any{"path": path}}
}

// openOK checks an open_binary answer and returns its target_id.
func openOK(b *testing.B, line []byte) string {
	var a struct {
		Result struct {
			IsError    bool         `json:"isError"`
			Structured openedTarget `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &a); err != nil || a.Result.IsError || a.Result.Structured.Result.TargetID == "" {
		b.Fatalf("open_binary: %v %.400s", err, line)
	}
	return a.Result.Structured.Result.TargetID
}

func fileSize(b *testing.B, path string) float64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return float64(fi.Size()) / 1024 // KiB, as /proc reports
}

func mib(kib float64) float64 { return kib / 1024 }

// procStatus reads the kB fields of /proc/PID/status, in MiB.
func procStatus(b *testing.B, pid int) map[string]float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc status to read memory from: %v", err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, ":")
		f := strings.Fields(v)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, err := strconv.ParseFloat(f[0], 64)
		if err == nil {
			out[k] = n / 1024
		}
	}
	return out
}

// cpuTicks is the process's user+system time in clock ticks.
func cpuTicks(b *testing.B, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) may hold spaces: fields count from its ")".
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// settle waits until the server has used at most one clock tick of CPU in
// each of two consecutive 100 ms windows: the symbol indexes an open warms
// are built in the background and outlive the open's answer.
func settle(b *testing.B, pid int) {
	last, quiet := cpuTicks(b, pid), 0
	for deadline := time.Now().Add(30 * time.Second); quiet < 2; {
		if time.Now().After(deadline) {
			b.Logf("server %d still busy after 30 s", pid)
			return
		}
		time.Sleep(100 * time.Millisecond)
		now := cpuTicks(b, pid)
		if now-last <= 1 {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
}

// BenchmarkCallDuringOpen times list_procedures {target: A, limit: 5} on
// an open target A while the same connection opens target B, against the
// same call with nothing else running (the server settled, B closed). A is
// REA_BENCH_FILE (default /usr/bin/gdb), its symbol index built before the
// first timed call. B is, per sub-benchmark:
//
//   - padded: a gcc-built program with a 100 MiB section of random bytes
//     (objcopy --add-section): the open is the hash, little else;
//   - libLLVM: /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 (105 MiB): the
//     hash, and the symbol index warmed beside it on another goroutine.
//
// Each iteration runs REA_BENCH_ROUNDS (default 5) rounds of three phases
// on one fresh server: calls on A back to back while this connection opens
// B, until B's answer (during-open; then B is closed); the same while a
// second `rea mcp` process opens B (during-other: the same CPU work, but no
// lock, goroutine scheduler or ledger in common with A's server); and, with
// both servers settled, as many calls with nothing else running (idle).
// Reported: p50/p99/max of each in ms, B's open time, the calls per open.
// The engine serializes opens per connection on a transition lock held
// while hashing; a call on another target takes only that target's
// admission lock, so during-open should match during-other, and any
// difference from idle be the machine's CPU, shared.
//
// REA_BENCH_INPROCESS=1 runs A's server in the benchmark's process (for go
// test -trace and -cpuprofile); REA_BENCH_SERVER_CPUPROFILE profiles a
// subprocess server.
func BenchmarkCallDuringOpen(b *testing.B) {
	a := os.Getenv("REA_BENCH_FILE")
	if a == "" {
		a = "/usr/bin/gdb"
	}
	if _, err := os.Stat(a); err != nil {
		testkit.SkipOrFail(b, fmt.Sprintf("no target A: %v (set REA_BENCH_FILE)", err))
	}
	warmPageCache(b, a)
	padded := paddedELF(b, 100<<20)
	warmPageCache(b, padded)
	rounds, _ := strconv.Atoi(os.Getenv("REA_BENCH_ROUNDS"))
	if rounds <= 0 {
		rounds = 5
	}
	for _, bc := range []struct{ name, path string }{
		{"padded", padded},
		{"libLLVM", "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, err := os.Stat(bc.path); err != nil {
				testkit.SkipOrFail(b, fmt.Sprintf("no target B: %v (apt-get install -y libllvm14)", err))
			}
			warmPageCache(b, bc.path)
			var all duringOpen
			for b.Loop() {
				all.add(callsDuringOpen(b, a, bc.path, rounds))
			}
			for _, m := range []struct {
				name string
				d    []time.Duration
			}{{"idle", all.idle}, {"during-open", all.busy}, {"during-other", all.other}} {
				slices.Sort(m.d)
				b.ReportMetric(ms(quantile(m.d, 0.50)), m.name+"-p50-ms")
				b.ReportMetric(ms(quantile(m.d, 0.99)), m.name+"-p99-ms")
				b.ReportMetric(ms(m.d[len(m.d)-1]), m.name+"-max-ms")
			}
			b.ReportMetric(float64(len(all.busy))/float64(all.opens), "calls/open")
			b.ReportMetric(ms(all.openTime)/float64(all.opens), "open-B-ms")
		})
	}
}

// duringOpen is what callsDuringOpen measured.
type duringOpen struct {
	idle, busy, other []time.Duration
	openTime          time.Duration // B's opens on A's connection, summed
	opens             int
}

func (d *duringOpen) add(e duringOpen) {
	d.idle, d.busy, d.other = append(d.idle, e.idle...), append(d.busy, e.busy...), append(d.other, e.other...)
	d.openTime += e.openTime
	d.opens += e.opens
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile of sorted d (nearest rank).
func quantile(d []time.Duration, q float64) time.Duration {
	i := int(float64(len(d))*q+0.999999) - 1
	return d[max(0, min(i, len(d)-1))]
}

// callsDuringOpen runs rounds of the measurement on fresh servers.
func callsDuringOpen(b *testing.B, a, bPath string, rounds int) duringOpen {
	b.StopTimer()
	defer b.StartTimer()
	c, pid := startBenchServer(b)
	defer c.close()
	other := startLean(b, "--ledger", filepath.Join(b.TempDir(), "other.db"), "mcp")
	defer other.close()
	targetA := openOK(b, c.rpc("tools/call", openArgs(a)))
	list := map[string]any{"name": "list_procedures", "arguments": map[string]any{"target": targetA, "limit": 5}}
	listOK(b, c.rpc("tools/call", list)) // builds A's index
	call := func() time.Duration {
		t0 := time.Now()
		listOK(b, c.rpc("tools/call", list))
		return time.Since(t0)
	}
	closeB := func(c *leanConn, target string) {
		listOK(b, c.rpc("tools/call", map[string]any{"name": "close_binary", "arguments": map[string]any{"target": target}}))
	}
	var m duringOpen
	for range rounds {
		// On A's connection: the open's answer may come before or after
		// the call in flight; a call is counted if the open was still
		// running when it was answered.
		settle(b, pid)
		settle(b, other.cmd.Process.Pid)
		openID := c.send("tools/call", openArgs(bPath))
		start := time.Now()
		var targetB string
		for targetB == "" {
			t0 := time.Now()
			id := c.send("tools/call", list)
			for {
				line := c.answer()
				if got := answerID(b, line); got == openID {
					targetB = openOK(b, line)
					m.openTime += time.Since(start)
					m.opens++
					continue
				} else if got != id {
					b.Fatalf("answer to %d, want %d or %d", got, id, openID)
				}
				listOK(b, line)
				break
			}
			if targetB == "" {
				m.busy = append(m.busy, time.Since(t0))
			}
		}
		closeB(c, targetB)

		// The same open in the other server.
		settle(b, pid)
		settle(b, other.cmd.Process.Pid)
		done := make(chan string)
		go func() { done <- openOK(b, other.rpc("tools/call", openArgs(bPath))) }()
		var otherB string
		for otherB == "" {
			d := call()
			select {
			case otherB = <-done:
			default:
				m.other = append(m.other, d)
			}
		}
		closeB(other, otherB)

		settle(b, pid)
		settle(b, other.cmd.Process.Pid)
		for range max(20, len(m.busy)-len(m.idle)) { // as many calls as during the opens so far
			m.idle = append(m.idle, call())
		}
	}
	return m
}

func answerID(b *testing.B, line []byte) int {
	var a struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		b.Fatalf("answer: %v %.200s", err, line)
	}
	return a.ID
}

func listOK(b *testing.B, line []byte) {
	var a struct {
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &a); err != nil || a.Result.IsError || a.Error != nil {
		b.Fatalf("call failed: %v %.400s", err, line)
	}
}

// paddedELF builds a small gcc program and adds a section of size random
// bytes to it with objcopy: an ELF whose open is dominated by its hash.
func paddedELF(b *testing.B, size int) string {
	objcopy := testkit.Need(b, "objcopy")
	dir := b.TempDir()
	exe := compileFixture(b, dir)
	pad := filepath.Join(dir, "pad.bin")
	buf := make([]byte, size)
	rand.NewChaCha8([32]byte{14}).Read(buf)
	if err := os.WriteFile(pad, buf, 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "padded")
	if o, err := exec.Command(objcopy, "--add-section", ".rea_pad="+pad, exe, out).CombinedOutput(); err != nil {
		b.Fatalf("objcopy: %v\n%s", err, o)
	}
	os.Remove(pad)
	return out
}
