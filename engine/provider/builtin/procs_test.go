package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// nmSym is one defined symbol as `nm -S --defined-only` prints it.
type nmSym struct {
	addr, size uint64
	typ        byte
	name       string
}

func nmSymbols(t *testing.T, path string) []nmSym { return nmSymbolsWith(t, "nm", path) }

func nmSymbolsWith(t *testing.T, tool, path string) []nmSym {
	t.Helper()
	nm := needTool(t, tool)
	out, err := exec.Command(nm, "-S", "--defined-only", path).Output()
	if err != nil {
		t.Fatalf("nm: %v", err)
	}
	var syms []nmSym
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		a, err1 := strconv.ParseUint(f[0], 16, 64)
		s, err2 := strconv.ParseUint(f[1], 16, 64)
		if err1 != nil || err2 != nil || len(f[2]) != 1 {
			continue
		}
		syms = append(syms, nmSym{a, s, f[2][0], f[3]})
	}
	return syms
}

func nmFind(t *testing.T, syms []nmSym, name string) nmSym {
	t.Helper()
	for _, s := range syms {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("nm: no symbol %s", name)
	return nmSym{}
}

func opErr(t *testing.T, c provider.Client, op string, in provider.Params) *fault.Error {
	t.Helper()
	_, err := c.Do(context.Background(), op, in, nil)
	var fe *fault.Error
	if !errors.As(err, &fe) {
		t.Fatalf("%s %v: want a fault, got %v", op, in, err)
	}
	return fe
}

func issueReason(fe *fault.Error) string {
	if is, ok := fe.Details["issues"].([]fault.Issue); ok && len(is) == 1 {
		return is[0].Path + " " + is[0].Reason
	}
	return ""
}

func TestProcedureAddressAndName(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	syms := nmSymbols(t, path)
	_, _, c := open(t, path)
	for _, fn := range []string{"main", "rea_add", "rea_mul", "rea_static_helper"} {
		s := nmFind(t, syms, fn)
		want := provider.FormatAddress(s.addr)
		for _, arg := range []string{fn, want, "0X" + strings.ToUpper(strconv.FormatUint(s.addr, 16)), provider.FormatAddress(s.addr + s.size - 1)} {
			r := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": arg, "document": nil})
			if r.Normalized != want {
				t.Errorf("procedure_address %q = %v, want %s", arg, r.Normalized, want)
			}
		}
		r := do(t, c, provider.OpAddressName, provider.Params{"address": want, "document": nil})
		if n, ok := r.Normalized.(*string); !ok || n == nil || *n != fn {
			t.Errorf("address_name %s = %v, want %s", want, r.Normalized, fn)
		}
	}
	// An address inside a function has no name.
	add := nmFind(t, syms, "rea_add")
	r := do(t, c, provider.OpAddressName, provider.Params{"address": provider.FormatAddress(add.addr + 1)})
	if n, ok := r.Normalized.(*string); !ok || n != nil {
		t.Errorf("address_name inside rea_add = %v, want null", r.Normalized)
	}
	if fe := opErr(t, c, provider.OpAddressName, provider.Params{"address": nil}); fe.Code != fault.InvalidRequest || issueReason(fe) != "/address missing_argument" {
		t.Errorf("address_name without address: %v %v", fe.Code, fe.Details)
	}
	for _, bad := range []string{"no_such_function", "rea_banner", "0xffffffffffff0000"} {
		if fe := opErr(t, c, provider.OpProcedureAddress, provider.Params{"procedure": bad}); fe.Code != fault.InvalidRequest || issueReason(fe) != "/procedure invalid_value" {
			t.Errorf("procedure_address %q: %v %v", bad, fe.Code, fe.Details)
		}
	}
	if fe := opErr(t, c, provider.OpProcedureAddress, provider.Params{"procedure": "0xzz"}); issueReason(fe) != "/procedure invalid_format" {
		t.Errorf("procedure_address 0xzz: %v", fe.Details)
	}
}

func TestProcedureAddressAmbiguous(t *testing.T) {
	path := fixture(t, "gcc-dup", func(dir, out string) (string, error) {
		if _, err := exec.LookPath("gcc"); err != nil {
			return "tool gcc is not installed; install it to run this test", nil
		}
		a := "static __attribute__((noinline)) int dup(int x) { return x + 1; }\nint fa(int x) { return dup(x); }\n"
		b := "static __attribute__((noinline)) int dup(int x) { return x * 3; }\nint fb(int x) { return dup(x); }\n" +
			"int fa(int);\nint main(int c, char **v) { return fa(c) + fb(c); }\n"
		if err := os.WriteFile(filepath.Join(dir, "a.c"), []byte(a), 0o644); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "b.c"), []byte(b), 0o644); err != nil {
			return "", err
		}
		return "", run(dir, nil, "gcc", "-O1", "-o", out, "a.c", "b.c")
	})
	var dups []string
	for _, s := range nmSymbols(t, path) {
		if s.name == "dup" {
			dups = append(dups, provider.FormatAddress(s.addr))
		}
	}
	if len(dups) != 2 {
		t.Fatalf("nm lists %d dup symbols", len(dups))
	}
	_, _, c := open(t, path)
	fe := opErr(t, c, provider.OpProcedureAddress, provider.Params{"procedure": "dup"})
	cands, _ := fe.Details["candidates"].([]string)
	if fe.Code != fault.InvalidRequest || issueReason(fe) != "/procedure invalid_value" || strings.Join(cands, ",") != strings.Join(dups, ",") {
		t.Errorf("ambiguous dup: %v %v, want candidates %v", fe.Code, fe.Details, dups)
	}
	// Either candidate address resolves.
	for _, d := range dups {
		if r := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": d}); r.Normalized != d {
			t.Errorf("procedure_address %s = %v", d, r.Normalized)
		}
	}
}

func containing(t *testing.T, c provider.Client, a uint64) provider.ContainingResult {
	t.Helper()
	r := do(t, c, provider.OpResolveContaining, provider.Params{"address": provider.FormatAddress(a), "document": nil})
	return r.Normalized.(provider.ContainingResult)
}

func TestResolveContainingProcedure(t *testing.T) {
	path := cFixture(t, "gcc-O0", "gcc", "-O0", "-g")
	syms := nmSymbols(t, path)
	_, _, c := open(t, path)
	checked := 0
	for _, s := range syms {
		if (s.typ != 'T' && s.typ != 't') || s.size == 0 {
			continue
		}
		for _, a := range []uint64{s.addr, s.addr + s.size/2, s.addr + s.size - 1} {
			got := containing(t, c, a)
			if !got.Found || got.Procedure == nil || got.Procedure.Address != provider.FormatAddress(s.addr) || got.Reason != nil {
				t.Errorf("resolve %#x (in %s): %+v", a, s.name, got)
			}
		}
		checked++
	}
	if checked < 4 {
		t.Fatalf("only %d sized functions", checked)
	}
	banner := nmFind(t, syms, "rea_banner")
	if got := containing(t, c, banner.addr); got.Found || got.Reason == nil || *got.Reason != "not_in_procedure" || got.Procedure != nil {
		t.Errorf("resolve rea_banner: %+v", got)
	}
	if got := containing(t, c, 0xffffffffffff0000); got.Found || got.Reason == nil || *got.Reason != "outside_segments" {
		t.Errorf("resolve far address: %+v", got)
	}
	if fe := opErr(t, c, provider.OpResolveContaining, provider.Params{}); issueReason(fe) != "/address missing_argument" {
		t.Errorf("resolve without address: %v", fe.Details)
	}
}

// A stripped binary names only its entry point and imports: addresses past
// the entry point are not guessed to belong to it.
func TestResolveContainingStripped(t *testing.T) {
	path := cFixture(t, "gcc-O2-stripped", "gcc", "-O2", "-s")
	_, _, c := open(t, path)
	tg := targetFor(t, path)
	b, _ := os.ReadFile(tg.Path)
	img, err := parseImage(b)
	if err != nil || !img.hasEntry {
		t.Fatalf("image: %v", err)
	}
	if got := containing(t, c, img.entry); !got.Found || got.Procedure.Address != provider.FormatAddress(img.entry) {
		t.Errorf("resolve entry: %+v", got)
	}
	// Without a symbol size, the entry's procedure is what recursive descent
	// reaches from it: its first instruction, not the bytes after its end.
	if got := containing(t, c, img.entry+1); !got.Found || got.Procedure.Address != provider.FormatAddress(img.entry) {
		t.Errorf("resolve entry+1: %+v", got)
	}
	fi := readInsns(t, c, provider.FormatAddress(img.entry))
	last := fi.Instructions.Items[len(fi.Instructions.Items)-1]
	la, _ := provider.ParseAddress(last.Address)
	past := la + uint64(len(last.Bytes)/2) + 1
	if got := containing(t, c, past); got.Found || *got.Reason != "not_in_procedure" {
		t.Errorf("resolve %#x past the entry's code (last %+v): %+v", past, last, got)
	}
	if r := do(t, c, provider.OpProcedureAddress, provider.Params{"procedure": provider.FormatAddress(img.entry)}); r.Normalized != provider.FormatAddress(img.entry) {
		t.Errorf("procedure_address entry: %v", r.Normalized)
	}
	// Import stubs have the PLT entry's extent.
	for _, p := range allProcedures(t, c) {
		if !p.Procedure.Thunk {
			continue
		}
		a, _ := provider.ParseAddress(p.Address)
		if got := containing(t, c, a+4); !got.Found || got.Procedure.Address != p.Address {
			t.Errorf("resolve inside stub %s %s: %+v", p.Value, p.Address, got)
		}
	}
}

// A page of procedures is built only as far as the byte budget can reach,
// and no shorter: on a library of long C++ names every page at the largest
// limit is exactly the full listing's slice that fits the budget, and one
// item more would not fit.
func TestProcedurePagesStopAtTheByteBudget(t *testing.T) {
	const lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
	if _, err := os.Stat(lib); err != nil {
		msg := fmt.Sprintf("%s is not installed (Debian package libstdc++6): %v", lib, err)
		if requireAll() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c := startOn(t, New("test"), targetFor(t, lib))
	var full []provider.ProcedureItem // one item a call: every item fits
	for off := int64(0); ; off++ {
		p := do(t, c, provider.OpListProcedures, provider.Params{"offset": off, "limit": int64(1), "document": nil}).Normalized.(provider.Page[provider.ProcedureItem])
		full = append(full, p.Items...)
		if p.NextOffset == nil {
			break
		}
	}
	cut := 0
	for off := 0; off < len(full); {
		p := do(t, c, provider.OpListProcedures, provider.Params{"offset": int64(off), "limit": int64(provider.MaxPageResults), "document": nil}).Normalized.(provider.Page[provider.ProcedureItem])
		if p.Returned != len(p.Items) || (p.NextOffset == nil) != (off+len(p.Items) == len(full)) ||
			(p.NextOffset != nil && *p.NextOffset != off+len(p.Items)) || p.Truncated != (p.NextOffset != nil) {
			t.Fatalf("page at %d holds %d items but says returned %d, next_offset %v, truncated %v",
				off, len(p.Items), p.Returned, p.NextOffset, p.Truncated)
		}
		b, _ := p.AppendCanonical(nil)
		var enc struct {
			Items      []provider.ProcedureItem `json:"items"`
			NextOffset *int                     `json:"next_offset"`
		}
		if err := json.Unmarshal(b, &enc); err != nil {
			t.Fatal(err)
		}
		n := len(enc.Items)
		if n == 0 || !reflect.DeepEqual(enc.Items, full[off:off+n]) {
			t.Fatalf("page at %d: %d items differ from the listing's", off, n)
		}
		if len(b) > provider.ResultBudget && n > 1 {
			t.Fatalf("page at %d is %d bytes", off, len(b))
		}
		if end := off + n; end < len(full) {
			if enc.NextOffset == nil || *enc.NextOffset != end {
				t.Fatalf("page at %d: next_offset %v, want %d", off, enc.NextOffset, end)
			}
			if n < provider.MaxPageResults {
				cut++
				more := provider.Page[provider.ProcedureItem]{Items: full[off : end+1], Offset: off, Limit: provider.MaxPageResults}
				b, _ := more.AppendCanonical(nil)
				if got := bytes.Count(b, []byte(`{"address":`)); got != n {
					t.Fatalf("page at %d stopped at %d items, but %d fit the budget", off, n, got)
				}
			}
		}
		off += n
	}
	if cut == 0 {
		t.Fatalf("no page of %d procedures reached the byte budget: the test proves nothing", len(full))
	}
	t.Logf("%d procedures, %d pages cut by the byte budget", len(full), cut)
}
