package dataflow

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/lift"
	"github.com/rea-re/rea/internal/testkit"
)

// fdeRanges reads the code ranges of the FDEs of an ELF file's .eh_frame
// (the procedure bounds of a stripped file).
func fdeRanges(ef *elf.File) ([][2]uint64, error) {
	sec := ef.Section(".eh_frame")
	if sec == nil {
		return nil, fmt.Errorf("no .eh_frame")
	}
	data, err := sec.Data()
	if err != nil {
		return nil, err
	}
	bo := binary.LittleEndian
	encs := map[int]byte{} // CIE offset → FDE pointer encoding
	var out [][2]uint64
	uleb := func(p *int) uint64 {
		var v uint64
		for s := uint(0); *p < len(data); s += 7 {
			b := data[*p]
			*p++
			v |= uint64(b&0x7f) << s
			if b < 0x80 || s > 56 {
				break
			}
		}
		return v
	}
	ptr := func(p *int, enc byte) (uint64, bool) {
		start := *p
		var v uint64
		switch enc & 0x0f {
		case 0x00, 0x04, 0x0c:
			if *p+8 > len(data) {
				return 0, false
			}
			v = bo.Uint64(data[*p:])
			*p += 8
		case 0x03:
			if *p+4 > len(data) {
				return 0, false
			}
			v = uint64(bo.Uint32(data[*p:]))
			*p += 4
		case 0x0b:
			if *p+4 > len(data) {
				return 0, false
			}
			v = uint64(int64(int32(bo.Uint32(data[*p:]))))
			*p += 4
		default:
			return 0, false
		}
		if enc&0x70 == 0x10 {
			v += sec.Addr + uint64(start)
		}
		return v, true
	}
	for off := 0; off+8 <= len(data); {
		length := int(bo.Uint32(data[off:]))
		if length == 0 || length == 0xffffffff || off+4+length > len(data) {
			break
		}
		next := off + 4 + length
		id := bo.Uint32(data[off+4:])
		p := off + 8
		if id == 0 { // CIE
			version := data[p]
			p++
			aug := p
			for p < next && data[p] != 0 {
				p++
			}
			augStr := string(data[aug:p])
			p++
			uleb(&p) // code alignment
			uleb(&p) // data alignment (sleb: only skipped)
			if version == 1 {
				p++
			} else {
				uleb(&p)
			}
			enc := byte(0)
			if strings.HasPrefix(augStr, "z") {
				uleb(&p)
				for _, c := range augStr[1:] {
					switch c {
					case 'R':
						enc = data[p]
						p++
					case 'L':
						p++
					case 'P':
						e := data[p]
						p++
						ptr(&p, e&0x7f)
					}
				}
			}
			encs[off] = enc
		} else {
			cie := off + 4 - int(id)
			enc, ok := encs[cie]
			if ok {
				lo, ok1 := ptr(&p, enc)
				n, ok2 := ptr(&p, enc&0x0f)
				if ok1 && ok2 && n > 0 && n < 1<<24 {
					out = append(out, [2]uint64{lo, lo + n})
				}
			}
		}
		off = next
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}

// pltNoReturn reports the calls of PLT stubs (jmp *slot) whose slot's
// import REA's prototype table says never returns.
func pltNoReturn(img *elfImage) func(uint64) bool {
	memo := map[uint64]bool{}
	lf := liftAt(amd64, img)
	return func(a uint64) bool {
		if r, ok := memo[a]; ok {
			return r
		}
		r := false
		in, ok := lf(a)
		if !ok {
			memo[a] = false
			return false
		}
		for _, s := range in.Stmts {
			if s.Op != lift.Load || s.A.Kind != lift.Const {
				continue
			}
			if name, ok := img.Import(s.A.Lo); ok {
				f, ok := ctypes.Lookup(name, ctypes.LinuxAMD64)
				r = ok && f.NoReturn
			}
		}
		memo[a] = r
		return r
	}
}

// TestJumpTablesSSH resolves the indirect jumps and calls of Debian's
// stripped /usr/bin/ssh, procedure by procedure as its .eh_frame bounds
// them, and reports how many are resolved; objdump's count of indirect
// jumps is the number present.
func TestJumpTablesSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("reads all of /usr/bin/ssh")
	}
	const path = "/usr/bin/ssh"
	if _, err := os.Stat(path); err != nil {
		testkit.SkipOrFail(t, "no "+path+" (Debian's openssh-client)")
	}
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	if ef.Machine != elf.EM_X86_64 {
		t.Skipf("%s is not x86-64", path)
	}
	img, err := newELFImage(ef)
	if err != nil {
		t.Fatal(err)
	}
	ranges, err := fdeRanges(ef)
	if err != nil {
		t.Fatal(err)
	}
	text := ef.Section(".text")
	jumps, err := indirectJumps(testkit.Need(t, "objdump"), path, text.Addr, text.Addr+text.Size)
	if err != nil {
		t.Fatal(err)
	}
	present := map[uint64]bool{}
	for _, j := range jumps {
		present[j] = true
	}
	noReturn := pltNoReturn(img)
	// Each indirect jump objdump shows is classified once: a table, a tail
	// call, a named reason, or in no procedure.
	class := map[uint64]string{}
	entries := 0
	calls, callsResolved, imports := 0, 0, 0
	callReasons := map[string]int{}
	for _, r := range ranges {
		sec, code, err := textOf(ef, r[0])
		if err != nil || r[1] > sec.Addr+uint64(len(code)) {
			continue
		}
		insns := liftProc(amd64, code[r[0]-sec.Addr:r[1]-sec.Addr], r[0])
		for _, in := range insns {
			if present[in.Addr] && class[in.Addr] == "" {
				class[in.Addr] = "not reached from the procedure's entry"
			}
		}
		res, err := ResolveProcedure(amd64, insns, img, Options{Start: r[0], End: r[1], NoReturn: noReturn})
		if err != nil {
			continue
		}
		for _, tb := range res.Tables {
			if !present[tb.Jump] {
				t.Errorf("a table at %#x where objdump shows no indirect jump", tb.Jump)
				continue
			}
			class[tb.Jump] = "table"
			entries += tb.Count()
		}
		for _, u := range res.UnresolvedJumps {
			if present[u.Addr] {
				class[u.Addr] = u.Reason
				t.Logf("unresolved jump %#x in [%#x, %#x): %s %s", u.Addr, r[0], r[1], u.Reason, u.Detail)
			}
		}
		for _, c := range res.Calls {
			if c.Tail {
				if present[c.Call] {
					class[c.Call] = "tail call"
				}
				continue
			}
			calls++
			callsResolved++
			if c.Import != "" {
				imports++
			}
		}
		for _, u := range res.UnresolvedCalls {
			calls++
			callReasons[u.Reason]++
		}
	}
	count := map[string]int{}
	for _, j := range jumps {
		c := class[j]
		if c == "" {
			c = "in no procedure"
		}
		count[c]++
	}
	resolvedJumps := count["table"]
	t.Logf("%s: %d procedures (.eh_frame); %d indirect jumps (objdump): %v; %d table entries",
		path, len(ranges), len(jumps), count, entries)
	t.Logf("indirect calls: %d, resolved %d (%d imports through the GOT); unresolved by reason: %v", calls, callsResolved, imports, callReasons)
	if resolvedJumps == 0 {
		t.Errorf("no jump table of %s resolved", path)
	}
}
