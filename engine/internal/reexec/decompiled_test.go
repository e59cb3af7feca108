package reexec

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/provider/builtin"
	"github.com/rea-re/rea/engine/target"
)

// TestDecompiledPass is issue 26's re-executability measure: every case
// built as a user would, its function decompiled by the builtin provider
// (procedure_pseudo_code of the function's address in the binary; static
// helpers the function calls decompiled the same way), prelude + code
// compiled at -O0 with the case's own assertion main and run. It prints
// the table (compiler × level × architecture) and the failures by stage,
// and fails in a cell below the goal (Goal).
func TestDecompiledPass(t *testing.T) {
	cs := cases(t)
	if only := os.Getenv("REA_REEXEC_CASES"); only != "" { // a reading aid: these cases only
		names := strings.Split(only, ",")
		cs = slices.DeleteFunc(cs, func(c Case) bool { return !slices.Contains(names, c.Name) })
	}
	cl := cells(t)
	dump := os.Getenv("REA_REEXEC_DUMP") // a reading aid: this case's units and results
	unit := func(ctx context.Context, c Case, b Binary) (string, error) {
		u, err := decompiledUnit(ctx, c, b)
		if c.Name == dump {
			t.Logf("%s %s %s unit (err %v):\n%s", c.Name, b.Arch, b.Path, err, u)
		}
		return u, err
	}
	tab, outs, err := harness.Sweep(context.Background(), cs, cl, unit)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("re-executability of the decompiled functions:\n%s", tab)
	stages := map[string]map[string][]string{} // cell → stage → cases
	for _, o := range outs {
		if o.Result.Pass {
			continue
		}
		k := o.Config.String()
		if stages[k] == nil {
			stages[k] = map[string][]string{}
		}
		stages[k][o.Result.Stage] = append(stages[k][o.Result.Stage], o.Case)
	}
	for _, cell := range tab.Configs() {
		st := stages[cell.String()]
		var keys []string
		for s := range st {
			keys = append(keys, s)
		}
		sort.Strings(keys)
		for _, s := range keys {
			sort.Strings(st[s])
			t.Logf("%s %s (%d): %s", cell, s, len(st[s]), strings.Join(st[s], " "))
		}
	}
	if dump != "" {
		for _, o := range outs {
			if o.Case == dump {
				t.Logf("%s %s %s:\n%s", o.Case, o.Config, o.Result.Stage, o.Result.Output)
			}
		}
	}
	for _, cell := range tab.Below(Goal) {
		pass, total := tab.Counts(cell)
		t.Errorf("%s: %d/%d pass (%.1f%%), below issue 26's goal %.0f%%", cell, pass, total, 100*float64(pass)/float64(total), 100*Goal(cell))
	}
}

// decompiledUnit is the translation unit the builtin provider's
// pseudo-code makes of b's function: the function's prelude, then the
// code of each static helper the case lists (their own preludes are the
// same includes and helpers), then the function's code.
func decompiledUnit(ctx context.Context, c Case, b Binary) (string, error) {
	addrs, err := symbolAddrs(b.Path, append([]string{b.Func}, c.Helpers...))
	if err != nil {
		return "", err
	}
	cl, err := openBuiltin(ctx, b.Path)
	if err != nil {
		return "", err
	}
	defer cl.Close(context.Background())
	decompileAt := func(a uint64) (provider.PseudoCode, error) {
		res, err := cl.Do(ctx, provider.OpProcedurePseudoCode, provider.Params{"procedure": provider.FormatAddress(a),
			"offset": int64(0), "limit": int64(provider.MaxPseudoLines)}, nil)
		if err != nil {
			return provider.PseudoCode{}, err
		}
		pc, ok := res.Normalized.(provider.PseudoCode)
		if !ok {
			return provider.PseudoCode{}, fmt.Errorf("procedure_pseudo_code answered %T", res.Normalized)
		}
		return pc, nil
	}
	fn, err := decompileAt(addrs[b.Func])
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString(fn.Prelude)
	for _, h := range c.Helpers {
		hc, err := decompileAt(addrs[h])
		if err != nil {
			return "", fmt.Errorf("helper %s: %w", h, err)
		}
		sb.WriteString("\n")
		sb.WriteString(hc.Code)
	}
	sb.WriteString("\n")
	sb.WriteString(fn.Code)
	return sb.String(), nil
}

// symbolAddrs finds the addresses of the named functions in the ELF file
// at path (the function's global symbol, a helper's local one).
func symbolAddrs(path string, names []string) (map[string]uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			out[s.Name] = s.Value
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("%s: no function symbol %q", path, n)
		}
	}
	return out, nil
}

// openBuiltin opens the executable at path with the builtin provider, as
// open_binary would.
func openBuiltin(ctx context.Context, path string) (provider.Client, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	arch := target.ELFArch(f.Machine)
	f.Close()
	sum := sha256.Sum256(data)
	tg := provider.Target{Path: path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)),
		Format: "elf", Kind: "executable", Architecture: arch}
	p := builtin.New("reexec")
	prof, err := p.Profile(ctx, tg)
	if err != nil {
		return nil, err
	}
	cl, err := p.Start(ctx, tg, prof, provider.Run{ID: "reexec-" + strconv.Itoa(len(data))})
	if err != nil {
		return nil, errors.Join(errors.New("builtin provider"), err)
	}
	return cl, nil
}
