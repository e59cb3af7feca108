package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/rea-re/rea/internal/testkit"
)

// pseudoFixtureC calls strcpy and system from several procedures, in a
// loop and in straight code; -fno-builtin and -fno-optimize-sibling-calls
// keep every call a call instruction (no inlined copy, no tail jump), so
// objdump's call sites are the oracle.
const pseudoFixtureC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
char g[64];
__attribute__((noinline)) void copy_in(char *dst, const char *src) { strcpy(dst, src); }
__attribute__((noinline)) int run(const char *cmd) {
	char buf[128];
	strcpy(buf, cmd);
	return system(buf);
}
__attribute__((noinline)) int loop(int n, char **v) {
	int r = 0;
	for (int i = 0; i < n; i++) {
		if (v[i][0] == 'x')
			r += system(v[i]);
		else
			strcpy(g, v[i]);
	}
	return r;
}
int main(int argc, char **argv) {
	copy_in(g, argv[0]);
	int r = run(argv[0]);
	r += loop(argc, argv);
	printf("%d\n", r);
	return system(g) + r;
}
`

// pseudoPage is a procedure_pseudo_code answer.
type pseudoPage struct {
	Procedure struct{ Address, Name string } `json:"procedure"`
	Language  string                         `json:"language"`
	Prelude   string                         `json:"prelude"`
	Code      string                         `json:"code"`
	Lines     struct {
		Offset, Limit, Total int
		NextOffset           *int `json:"next_offset"`
	} `json:"lines"`
	AddressMap []struct {
		Line   int         `json:"line"`
		Ranges [][2]string `json:"ranges"`
	} `json:"address_map"`
	Structure   map[string]int `json:"structure"`
	Limitations []string       `json:"limitations"`
}

type pseudoReply struct {
	Result   pseudoPage `json:"result"`
	Evidence struct {
		EvidenceID string `json:"evidence_id"`
	} `json:"evidence"`
}

func pseudoOf(t testing.TB, s *session, args map[string]any) pseudoReply {
	t.Helper()
	r := s.ok("procedure_pseudo_code", args)
	var out pseudoReply
	if err := json.Unmarshal(r.Structured, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// wholePseudo is every page of a procedure's text joined: its code and
// its address map (a large procedure's text is longer than one page).
func wholePseudo(t testing.TB, s *session, proc string) pseudoPage {
	t.Helper()
	var whole pseudoPage
	for off := 0; ; {
		p := pseudoOf(t, s, map[string]any{"procedure": proc, "offset": off, "limit": 2000}).Result
		if off == 0 {
			whole = p
		} else {
			whole.Code += p.Code
			whole.AddressMap = append(whole.AddressMap, p.AddressMap...)
		}
		if p.Lines.NextOffset == nil {
			return whole
		}
		off = *p.Lines.NextOffset
	}
}

func parseAddr(t testing.TB, a string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("address %q: %v", a, err)
	}
	return v
}

// compilesAsC compiles text with cc -std=gnu11 -c and fails the test with
// the compiler's errors.
func compilesAsC(t testing.TB, cc, name, text string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, "-std=gnu11", "-c", "-w", "-o", filepath.Join(dir, name+".o"), src).CombinedOutput(); err != nil {
		t.Errorf("%s -std=gnu11 -c of %s's pseudo-code: %v\n%s\n--- unit ---\n%s", cc, name, err, b, text)
	}
}

// TestProcedurePseudoCodeOverStdio: through a real `rea mcp`, the
// pseudo-code of each procedure of a compiled fixture compiles with gcc
// (and clang) -std=gnu11 -c; pages of 3 lines put together are the whole
// text and all cite the one record, whose parameters are {procedure:
// entry} and whose result holds the whole text; every address_map range
// starts at an instruction of the procedure; a rename shows on the next
// call; and a restarted server gives the same evidence_id.
func TestProcedurePseudoCodeOverStdio(t *testing.T) {
	dir := t.TempDir()
	fixture := testkit.CompileC(t, dir, "pseudo", pseudoFixtureC, "-O1", "-fno-builtin", "-fno-optimize-sibling-calls")
	ledgerPath := filepath.Join(dir, "ledger.db")
	s := startStdio(t, ledgerPath)
	s.ok("open_binary", map[string]any{"path": fixture})
	s.waitChanged()

	compilers := []string{testkit.Need(t, "gcc")}
	if cl, err := exec.LookPath("clang"); err == nil {
		compilers = append(compilers, cl)
	} else if testkit.RequireAll() {
		t.Fatal("clang is not installed")
	}
	for _, name := range []string{"main", "copy_in", "run", "loop"} {
		whole := pseudoOf(t, s, map[string]any{"procedure": name, "limit": 2000})
		p := whole.Result
		if p.Language != "c" || p.Procedure.Name != name || p.Lines.NextOffset != nil || p.Lines.Total < 3 ||
			p.Lines.Total != strings.Count(p.Code, "\n") {
			t.Fatalf("%s: %+v", name, p)
		}
		for _, cc := range compilers {
			compilesAsC(t, cc, name, p.Prelude+p.Code)
		}

		// paging is a view of one record
		var joined strings.Builder
		var maps int
		for off := 0; ; {
			page := pseudoOf(t, s, map[string]any{"procedure": name, "offset": off, "limit": 3})
			if page.Evidence.EvidenceID != whole.Evidence.EvidenceID {
				t.Fatalf("%s: page at %d cites %s, the whole text %s", name, off, page.Evidence.EvidenceID, whole.Evidence.EvidenceID)
			}
			if page.Result.Lines.Offset != off || page.Result.Lines.Total != p.Lines.Total {
				t.Fatalf("%s: page at %d: lines %+v", name, off, page.Result.Lines)
			}
			for _, m := range page.Result.AddressMap {
				if m.Line <= off || m.Line > off+3 {
					t.Fatalf("%s: page at %d maps line %d", name, off, m.Line)
				}
			}
			maps += len(page.Result.AddressMap)
			joined.WriteString(page.Result.Code)
			if page.Result.Lines.NextOffset == nil {
				break
			}
			off = *page.Result.Lines.NextOffset
		}
		if joined.String() != p.Code || maps != len(p.AddressMap) {
			t.Fatalf("%s: the pages' union differs from the whole text (%d of %d address map entries)", name, maps, len(p.AddressMap))
		}

		// address_map ranges start at the procedure's instructions
		insns := decode[struct {
			Result struct {
				Instructions struct {
					Items []struct{ Address string } `json:"items"`
				} `json:"instructions"`
			} `json:"result"`
		}](t, s.ok("read_function_instructions", map[string]any{"procedure": name, "limit": 500}).Structured).Result.Instructions.Items
		starts := map[string]bool{}
		for _, in := range insns {
			starts[in.Address] = true
		}
		if len(p.AddressMap) == 0 {
			t.Fatalf("%s: empty address map", name)
		}
		for _, m := range p.AddressMap {
			for _, rg := range m.Ranges {
				if !starts[rg[0]] || parseAddr(t, rg[1]) <= parseAddr(t, rg[0]) {
					t.Errorf("%s line %d: range %v does not start at one of its instructions", name, m.Line, rg)
				}
			}
		}

		r := s.ok("procedure_pseudo_code", map[string]any{"procedure": name})
		rec := recordOf(t, s, r)
		if rec.Confidence != "derived" || len(rec.Parameters) != 1 || rec.Parameters["procedure"] != p.Procedure.Address {
			t.Fatalf("%s: record parameters %v confidence %s", name, rec.Parameters, rec.Confidence)
		}
		// the id recomputes from the record (the answer is a view of it)
		full := decode[struct {
			Result struct {
				Bundle struct {
					Records []map[string]any `json:"records"`
				} `json:"bundle"`
			} `json:"result"`
		}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{rec.EvidenceID}}).Structured).Result.Bundle.Records
		if len(full) != 1 || recordID(t, full[0]) != rec.EvidenceID {
			t.Fatalf("%s: evidence_id %s does not recompute from its record", name, rec.EvidenceID)
		}
	}

	// the record holds the whole text, whatever page was asked
	small := s.ok("procedure_pseudo_code", map[string]any{"procedure": "main", "limit": 1})
	bundle := decode[struct {
		Result struct {
			Bundle struct {
				Records []struct {
					NormalizedResult pseudoPage `json:"normalized_result"`
				} `json:"records"`
			} `json:"bundle"`
		} `json:"result"`
	}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{
		decode[pseudoReply](t, small.Structured).Evidence.EvidenceID}}).Structured).Result.Bundle.Records
	mainWhole := pseudoOf(t, s, map[string]any{"procedure": "main", "limit": 2000})
	if len(bundle) != 1 || bundle[0].NormalizedResult.Code != mainWhole.Result.Code {
		t.Fatalf("the record of a one-line page does not hold the whole text: %+v", bundle)
	}

	// a rename shows on the next call, in the caller and the callee
	copyAt := pseudoOf(t, s, map[string]any{"procedure": "copy_in"}).Result.Procedure.Address
	if !strings.Contains(mainWhole.Result.Code, "copy_in(") {
		t.Fatalf("main's text does not call copy_in:\n%s", mainWhole.Result.Code)
	}
	s.ok("set_address_name", map[string]any{"address": copyAt, "name": "renamed_copy"})
	renamed := pseudoOf(t, s, map[string]any{"procedure": "main", "limit": 2000}).Result
	if !strings.Contains(renamed.Code, "renamed_copy(") || strings.Contains(renamed.Code, "copy_in(") {
		t.Fatalf("after the rename main's text reads:\n%s", renamed.Code)
	}
	compilesAsC(t, compilers[0], "renamed", renamed.Prelude+renamed.Code)
	if callee := pseudoOf(t, s, map[string]any{"procedure": copyAt}).Result; callee.Procedure.Name != "renamed_copy" ||
		!strings.Contains(callee.Code, "renamed_copy(") {
		t.Fatalf("the renamed procedure: %+v", callee)
	}
	found := decode[struct {
		Result struct {
			Items []struct {
				Procedure struct{ Name string } `json:"procedure"`
			} `json:"items"`
		} `json:"result"`
	}](t, s.ok("search_pseudo_code", map[string]any{"pattern": "renamed_copy("}).Structured).Result.Items
	if len(found) < 2 {
		t.Fatalf("search_pseudo_code finds the new name %d times, want its definition and main's call", len(found))
	}
	s.ok("set_address_name", map[string]any{"address": copyAt, "name": ""})

	// a restarted server on the same ledger gives the same evidence_id
	s.c.Close()
	s2 := startStdio(t, ledgerPath)
	s2.ok("open_binary", map[string]any{"path": fixture})
	s2.waitChanged()
	again := pseudoOf(t, s2, map[string]any{"procedure": "main", "offset": 2, "limit": 2})
	if again.Evidence.EvidenceID != mainWhole.Evidence.EvidenceID {
		t.Fatalf("after a restart main's pseudo-code cites %s, before %s", again.Evidence.EvidenceID, mainWhole.Evidence.EvidenceID)
	}
	s2.c.Close()
	s3 := startStdio(t, filepath.Join(dir, "other.db"))
	s3.ok("open_binary", map[string]any{"path": fixture})
	s3.waitChanged()
	if id := pseudoOf(t, s3, map[string]any{"procedure": "main"}).Evidence.EvidenceID; id != mainWhole.Evidence.EvidenceID {
		t.Fatalf("on a fresh ledger main's pseudo-code cites %s, before %s", id, mainWhole.Evidence.EvidenceID)
	}
}

// callSites are objdump's call instructions to name@plt, by address.
func callSites(t testing.TB, objdump, path string, names ...string) map[uint64]string {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("%s -d %s: %v", objdump, path, err)
	}
	re := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(call|callq|bl)\s+[0-9a-f]+ <(` + strings.Join(names, "|") + `)@plt>`)
	sites := map[uint64]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			sites[a] = m[3]
		}
	}
	return sites
}

type pseudoHit struct {
	Procedure struct{ Address, Name string } `json:"procedure"`
	Line      int                            `json:"line"`
	Text      string                         `json:"text"`
}

// searchAll pages search_pseudo_code to its end.
func searchAll(t testing.TB, s *session, args map[string]any) ([]pseudoHit, []string) {
	t.Helper()
	var hits []pseudoHit
	var lims []string
	for off := 0; ; {
		args["offset"], args["limit"] = off, 100
		r := s.ok("search_pseudo_code", args)
		page := decode[struct {
			Result struct {
				Items      []pseudoHit `json:"items"`
				NextOffset *int        `json:"next_offset"`
			} `json:"result"`
			Evidence struct {
				Limitations []string `json:"limitations"`
			} `json:"evidence"`
		}](t, r.Structured)
		hits = append(hits, page.Result.Items...)
		lims = page.Evidence.Limitations
		if page.Result.NextOffset == nil {
			return hits, lims
		}
		off = *page.Result.NextOffset
	}
}

// coveredSites checks every hit's line against the oracle: the line's
// address_map ranges must hold at least one call site of the name the line
// calls; it returns the sites the hits cover.
func coveredSites(t testing.TB, s *session, hits []pseudoHit, sites map[uint64]string, lineRE *regexp.Regexp) map[uint64]bool {
	t.Helper()
	maps := map[string]pseudoPage{}
	covered := map[uint64]bool{}
	for _, h := range hits {
		p, ok := maps[h.Procedure.Address]
		if !ok {
			p = wholePseudo(t, s, h.Procedure.Address)
			maps[h.Procedure.Address] = p
		}
		if lines := strings.Split(p.Code, "\n"); h.Line < 1 || h.Line > len(lines) || lines[h.Line-1] != h.Text {
			t.Fatalf("hit %+v is not line %d of %s's text", h, h.Line, h.Procedure.Name)
		}
		called := map[string]bool{}
		for _, m := range lineRE.FindAllStringSubmatch(h.Text, -1) {
			called[m[1]] = true
		}
		n := 0
		for _, m := range p.AddressMap {
			if m.Line != h.Line {
				continue
			}
			for _, rg := range m.Ranges {
				lo, hi := parseAddr(t, rg[0]), parseAddr(t, rg[1])
				for a, name := range sites {
					if a >= lo && a < hi && called[name] {
						covered[a] = true
						n++
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("hit %s line %d %q maps to no call instruction of %v", h.Procedure.Name, h.Line, h.Text, called)
		}
	}
	return covered
}

// TestSearchPseudoCodeFindsCalls: search_pseudo_code finds every call to
// strcpy and system in the fixture built for x86-64, arm64 and i386, and
// each line found maps back (address_map) to the call instructions
// objdump shows.
func TestSearchPseudoCodeFindsCalls(t *testing.T) {
	builds := []struct{ arch, cc, objdump string }{
		{"x86-64", "gcc", "objdump"},
		{"arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump"},
		{"i386", "i686-linux-gnu-gcc", "objdump"},
	}
	lineRE := regexp.MustCompile(`\b(strcpy|system)\(`)
	for _, b := range builds {
		t.Run(b.arch, func(t *testing.T) {
			dir := t.TempDir()
			cc, od := testkit.Need(t, b.cc), testkit.Need(t, b.objdump)
			fixture, err := testkit.BuildC(cc, dir, "pseudo", pseudoFixtureC, "-O1", "-fno-builtin", "-fno-optimize-sibling-calls")
			if err != nil {
				t.Fatal(err)
			}
			sites := callSites(t, od, fixture, "strcpy", "system")
			if len(sites) < 6 {
				t.Fatalf("objdump shows %d call sites: %v", len(sites), sites)
			}
			s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
			s.ok("open_binary", map[string]any{"path": fixture})
			hits, _ := searchAll(t, s, map[string]any{"pattern": `\b(strcpy|system)\(`, "mode": "regex", "case_sensitive": true})
			covered := coveredSites(t, s, hits, sites, lineRE)
			for a, name := range sites {
				if !covered[a] {
					t.Errorf("the call to %s at %#x is on no line search_pseudo_code found", name, a)
				}
			}
			t.Logf("%s: %d call sites, %d lines found, all mapped", b.arch, len(sites), len(hits))
		})
	}
}

// TestSearchPseudoCodeGdb: on Debian's gdb every call to strcpy and system
// is on a line that maps back to it: procedure_pseudo_code of the
// procedures holding the call sites (-short: the first 40), or with
// REA_PSEUDO_SEARCH_GDB=1 search_pseudo_code over every procedure.
func TestSearchPseudoCodeGdb(t *testing.T) {
	const gdb = "/usr/bin/gdb"
	if _, err := os.Stat(gdb); err != nil {
		testkit.SkipOrFail(t, "Debian's gdb is not installed at "+gdb)
	}
	sites := callSites(t, testkit.Need(t, "objdump"), gdb, "strcpy", "system")
	if len(sites) == 0 {
		t.Fatal("objdump shows no call to strcpy or system in gdb")
	}
	dir := t.TempDir()
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": gdb})
	lineRE := regexp.MustCompile(`\b(strcpy|system)\(`)
	var hits []pseudoHit
	want := sites
	if os.Getenv("REA_PSEUDO_SEARCH_GDB") == "" {
		// The procedures holding the call sites (under -short the first
		// 40 sites'); the search over every procedure of gdb takes
		// minutes, too long for CI under -race: REA_PSEUDO_SEARCH_GDB=1.
		addrs := make([]uint64, 0, len(sites))
		for a := range sites {
			addrs = append(addrs, a)
		}
		slices.Sort(addrs)
		if testing.Short() {
			addrs = addrs[:min(40, len(addrs))]
		}
		want = map[uint64]string{}
		for _, a := range addrs {
			want[a] = sites[a]
		}
		procs := map[string]bool{}
		for a := range want {
			r := decode[struct {
				Result struct {
					Procedure *struct{ Address string } `json:"procedure"`
				} `json:"result"`
			}](t, s.ok("resolve_containing_procedure", map[string]any{"address": "0x" + strconv.FormatUint(a, 16)}).Structured)
			if r.Result.Procedure == nil {
				t.Fatalf("no procedure contains the call at %#x", a)
			}
			procs[r.Result.Procedure.Address] = true
		}
		for addr := range procs {
			p := wholePseudo(t, s, addr)
			for i, l := range strings.Split(p.Code, "\n") {
				if lineRE.MatchString(l) {
					h := pseudoHit{Line: i + 1, Text: l}
					h.Procedure.Address, h.Procedure.Name = p.Procedure.Address, p.Procedure.Name
					hits = append(hits, h)
				}
			}
		}
	} else {
		start := time.Now()
		var lims []string
		hits, lims = searchAll(t, s, map[string]any{"pattern": `\b(strcpy|system)\(`, "mode": "regex", "case_sensitive": true})
		t.Logf("gdb: search_pseudo_code over every procedure took %v; limitations %q", time.Since(start), lims)
	}
	covered := coveredSites(t, s, hits, sites, lineRE)
	// A call the text leaves out must be one its procedure's answer says
	// it leaves out (code its entry does not reach: a landing pad).
	missed, stated := 0, 0
	for a, name := range want {
		if covered[a] {
			continue
		}
		r := decode[struct {
			Result struct {
				Procedure *struct{ Address string } `json:"procedure"`
			} `json:"result"`
		}](t, s.ok("resolve_containing_procedure", map[string]any{"address": "0x" + strconv.FormatUint(a, 16)}).Structured)
		said := false
		if r.Result.Procedure != nil {
			for _, l := range pseudoOf(t, s, map[string]any{"procedure": r.Result.Procedure.Address, "limit": 1}).Result.Limitations {
				said = said || strings.Contains(l, "not reached from its entry")
			}
		}
		if said {
			stated++
			continue
		}
		missed++
		t.Errorf("gdb: the call to %s at %#x is on no line found, and no limitation says why", name, a)
	}
	t.Logf("gdb: %d of %d call sites checked, %d lines, %d left out as their procedure's limitation says, %d missed",
		len(want), len(sites), len(hits), stated, missed)
}

// TestSearchPseudoCodeCancelled: a search over libc.so.6 cancelled after
// its first progress notification answers cancelled, and the same search
// then completes.
func TestSearchPseudoCodeCancelled(t *testing.T) {
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		testkit.SkipOrFail(t, "Debian's libc.so.6 (amd64) is not at "+libc)
	}
	dir := t.TempDir()
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": libc})
	for len(s.progress) > 0 {
		<-s.progress
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			select {
			case p := <-s.progress:
				if c, _ := p["progress"].(float64); c > 0 {
					cancel()
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search_pseudo_code", map[string]any{"pattern": "never matches \x01"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "pseudo-cancel"}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("search_pseudo_code: %v", err)
	}
	b, _ := json.Marshal(res)
	if code := errorCode(t, b); code != "cancelled" {
		t.Fatalf("a cancelled search answered %s: %.400s", code, b)
	}
}

// TestPseudoCodeUnavailableOnArm32: armhf code is not decompiled; the
// answer says so as capability_unavailable with a reason.
func TestPseudoCodeUnavailableOnArm32(t *testing.T) {
	dir := t.TempDir()
	fixture, err := testkit.BuildC(testkit.Need(t, "arm-linux-gnueabihf-gcc"), dir, "pseudo", pseudoFixtureC, "-O1")
	if err != nil {
		t.Fatal(err)
	}
	s := startInProcess(t, newInProcessServer(t, filepath.Join(dir, "ledger.db")))
	s.ok("open_binary", map[string]any{"path": fixture})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"procedure_pseudo_code", map[string]any{"procedure": "main"}}, {"search_pseudo_code", map[string]any{"pattern": "x"}}} {
		e := s.errorOf(call.tool, call.args)
		details, _ := e["details"].(map[string]any)
		if e["code"] != "capability_unavailable" || details == nil || !strings.Contains(details["reason"].(string), "arm") {
			t.Errorf("%s on armhf: %v", call.tool, e)
		}
	}
}
