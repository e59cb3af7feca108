package builtin

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// binary_triage answers the triage section of binary_overview
// (CONTRACTS.md §18): what the binary is, who built it, how it is hardened,
// and what looks anomalous, all read from headers, notes, symbol tables and
// section bytes (no disassembly).
//
// Decisions recorded here (they shape the answer and so Evidence):
//
//   - Every leaf is a Fact {value, source}. source is "header:<field>",
//     "program_headers:<type>", "dynamic:<tag>", "note:<type>",
//     "section:<name>", "symbol:<name>", "directory:<name>" (PE), or
//     "load_command:<name>" (Mach-O); a heuristic is "heuristic:<name>"
//     (entropy, start-code emulation). A fact that is not present in the
//     file is omitted; one that cannot be read is a limitation.
//   - ELF hardening follows hardening-check: PIE is ET_DYN with PT_PHDR;
//     the stack protector and FORTIFY read the undefined FUNC/NOTYPE/IFUNC
//     symbols of .symtab and .dynsym (version suffixes dropped), FORTIFY
//     counting glibc's fortifiable functions imported plain (unprotected)
//     and as __<name>_chk (protected); RELRO is PT_GNU_RELRO, "full" with
//     immediate binding (DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW); CET is the
//     x86 feature_1_and property of the GNU property note.
//   - Anomalies: Shannon entropy (bits per byte) of every file-backed
//     section (of every PT_LOAD segment when an ELF has no section headers,
//     as a packed one has not), flagged at >= 7.2; packer signatures
//     (triage_packer.go); W+X segments or sections; an entry point outside
//     every executable section; PT_LOAD p_filesz > p_memsz and sections
//     running past the end of the file; bytes after the last segment (ELF)
//     or section (PE; the COFF symbol table and certificates included) are
//     an overlay.
//   - loading is list_dependencies' answer (deps.go) with each item's
//     source.
//   - A core file gets identity and its mappings' W+X only.

func fact(v any, src string) provider.Fact { return provider.Fact{Value: v, Source: src} }

// triageBuilder collects the facts and limitations of one triage.
type triageBuilder struct {
	img  *image
	data []byte
	t    provider.Triage
	lims []string
	// segments are the file-backed PT_LOAD ranges of an ELF without section
	// headers (a packed file has none): entropy is measured on them instead.
	segments []fileRegion
}

// fileRegion is a named range of file bytes.
type fileRegion struct {
	name      string
	off, size uint64
}

func (b *triageBuilder) limit(format string, args ...any) {
	b.lims = append(b.lims, fmt.Sprintf(format, args...))
}

// entropyThreshold flags a section as likely compressed or encrypted.
const entropyThreshold = 7.2

// maxEntropySections bounds the sections listed in anomalies.entropy.
const maxEntropySections = 64

func (c *Client) doTriage(ctx context.Context, op string, rep progress.Reporter) (provider.Result, error) {
	img := c.ix.img
	b := &triageBuilder{img: img, data: c.data, t: provider.Triage{
		Identity: map[string]any{}, Toolchain: map[string]any{}, Hardening: map[string]any{},
		Anomalies: map[string]any{},
		Loading:   map[string]any{},
	}}
	if err := b.loading(ctx, c); err != nil {
		return provider.Result{}, buildFault(op, err)
	}
	b.t.Identity["format"] = fact(img.container, "header:magic")
	if img.arch != "" {
		b.t.Identity["architecture"] = fact(img.arch, "header:machine")
	}
	if img.hasEntry {
		b.t.Identity["entry"] = fact(provider.FormatAddress(img.entry), "header:entry")
	}
	switch {
	case img.elf != nil:
		b.elf()
	case img.pe != nil:
		b.pe()
	case img.macho != nil:
		b.macho()
	}
	if err := ctx.Err(); err != nil {
		return provider.Result{}, buildFault(op, err)
	}
	b.goBuildInfo()
	if _, isGo := b.t.Toolchain["go"]; !isGo {
		b.rustPanicLocations()
	}
	if six, err := c.symbols(ctx, op, rep); err == nil {
		if m, ok := c.mainFact(six); ok {
			b.t.Identity["main"] = m
		}
	} else {
		return provider.Result{}, err
	}
	if err := b.entropy(ctx); err != nil {
		return provider.Result{}, buildFault(op, err)
	}
	b.entryOutsideCode()
	b.packer()
	lims := append(slices.Clip(img.limitations), b.lims...)
	return provider.Result{Normalized: b.t, Limitations: lims}, nil
}

// dependencySource names where the loader facts of a dependency kind come
// from.
var dependencySource = map[string]string{
	"needed":         "dynamic:DT_NEEDED",
	"import":         "directory:import",
	"delay_import":   "directory:delay_import",
	"load_dylib":     "load_command:LC_LOAD_DYLIB",
	"weak_dylib":     "load_command:LC_LOAD_WEAK_DYLIB",
	"reexport_dylib": "load_command:LC_REEXPORT_DYLIB",
}

// loading fills triage's loading part from the dependency list.
func (b *triageBuilder) loading(ctx context.Context, c *Client) error {
	deps, lims, interp, err := c.loading(ctx)
	if err != nil {
		return err
	}
	items := make([]provider.LoadingItem, len(deps))
	for i, d := range deps {
		items[i] = provider.LoadingItem{Name: d.Name, Kind: d.Kind, CandidatePath: d.CandidatePath, Reason: d.Reason, Imports: d.Imports,
			Source: cmp.Or(dependencySource[d.Kind], "header")}
	}
	b.t.Loading["dependencies"] = items
	if interp != nil {
		b.t.Loading["interpreter"] = interp
	}
	for _, l := range lims {
		b.limit("%s", l)
	}
	return nil
}

// mainFact finds the procedure named main (main.main in a Go binary, _main
// in Mach-O) and says where its name came from.
func (c *Client) mainFact(six *symIndex) (provider.MainFact, bool) {
	want := [][]byte{[]byte("main"), []byte("_main")}
	if c.ix.img.pcln != nil {
		want = [][]byte{[]byte("main.main"), []byte("_main.main")}
	}
	for _, w := range want {
		for _, pi := range six.procs {
			s := &six.syms[pi]
			if !bytes.Equal(six.name(c.data, s), w) {
				continue
			}
			src := "symbol:" + string(w)
			switch {
			case c.ix.img.pcln != nil:
				src = "section:pclntab"
			case s.source == srcAnalysis:
				src = "heuristic:start-code"
			}
			return provider.MainFact{Address: provider.FormatAddress(s.addr), Name: string(w), Source: src}, true
		}
	}
	return provider.MainFact{}, false
}

func (b *triageBuilder) entropy(ctx context.Context) error {
	var out []provider.SectionEntropy
	var high []string
	regions, src := b.segments, "heuristic:shannon-entropy(segment)"
	for _, s := range b.img.sections {
		if s.fsize != 0 {
			regions, src = nil, "heuristic:shannon-entropy"
			break
		}
	}
	if regions == nil {
		for _, s := range b.img.sections {
			regions = append(regions, fileRegion{s.name, s.off, s.fsize})
		}
	}
	n := 0
	for _, s := range regions {
		if s.size == 0 || s.off >= uint64(len(b.data)) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(satAdd(s.off, s.size), uint64(len(b.data)))
		e, sampled := sampledShannon(b.data[s.off:end])
		hi := e >= entropyThreshold
		if hi {
			high = append(high, s.name)
		}
		n++
		if len(out) < maxEntropySections {
			out = append(out, provider.SectionEntropy{Name: s.name, Size: end - s.off, Entropy: e, Sampled: sampled, High: hi, Source: src})
		}
	}
	if n > len(out) {
		b.limit("triage anomalies: entropy listed for the first %d of %d sections", len(out), n)
	}
	if out == nil {
		out = []provider.SectionEntropy{}
	}
	b.t.Anomalies["entropy"] = out
	if high == nil {
		high = []string{}
	}
	b.t.Anomalies["high_entropy_sections"] = fact(high, "heuristic:shannon-entropy>=7.2")
	return nil
}

// Sections above entropySample bytes are measured on entropySample bytes
// in evenly spaced blocks, so triage stays cheap on a 100 MB library (the
// whole of libLLVM's bytes cost 120 ms; a packed payload is uniform, so a
// sample tells it apart as well).
const (
	entropySample = 1 << 20
	entropyBlock  = 4 << 10
)

// sampledShannon is shannon over p, or over evenly spaced blocks of it when
// p is larger than entropySample; it returns the bytes read too.
func sampledShannon(p []byte) (float64, uint64) {
	if len(p) <= entropySample {
		return shannon(p), uint64(len(p))
	}
	n := entropySample / entropyBlock
	stride := (len(p) - entropyBlock) / (n - 1)
	var h [4][256]uint64
	for i := range n {
		histogram(&h, p[i*stride:i*stride+entropyBlock])
	}
	return entropyOf(&h, entropySample), entropySample
}

// shannon is the Shannon entropy of p in bits per byte, rounded to 3
// decimals so that the answer is stable across platforms.
func shannon(p []byte) float64 {
	if len(p) == 0 {
		return 0
	}
	var h [4][256]uint64
	histogram(&h, p)
	return entropyOf(&h, len(p))
}

// histogram counts the bytes of p into h; four histograms break the
// store-to-load dependency of runs of one byte.
func histogram(h *[4][256]uint64, p []byte) {
	i := 0
	for ; i+4 <= len(p); i += 4 {
		h[0][p[i]]++
		h[1][p[i+1]]++
		h[2][p[i+2]]++
		h[3][p[i+3]]++
	}
	for ; i < len(p); i++ {
		h[0][p[i]]++
	}
}

func entropyOf(h *[4][256]uint64, total int) float64 {
	n := float64(total)
	var e float64
	for v := range 256 {
		c := h[0][v] + h[1][v] + h[2][v] + h[3][v]
		if c == 0 {
			continue
		}
		q := float64(c) / n
		e -= q * math.Log2(q)
	}
	return math.Round(e*1000) / 1000
}

func (b *triageBuilder) entryOutsideCode() {
	if !b.img.hasEntry {
		return
	}
	if b.img.elf != nil && b.img.entry == 0 {
		return // a shared library without an entry point
	}
	b.t.Anomalies["entry_outside_code"] = fact(!b.img.execAt(b.img.entry), "heuristic:entry-in-executable-section")
}

// sectionsBeyondFile records the sections whose file bytes (offset,
// size as the section table says) run past the end of the file.
func (b *triageBuilder) sectionsBeyondFile(names []string) {
	if names != nil {
		b.t.Anomalies["sections_beyond_file"] = fact(names, "header:section_table(offset+size>file size)")
	}
}

// overlay records the file bytes after end (the last segment or section).
func (b *triageBuilder) overlay(end uint64, src string) {
	if end < b.img.sliceSize {
		b.t.Anomalies["overlay"] = fact(map[string]any{"offset": end, "size": b.img.sliceSize - end}, src)
	}
}

func endianName(little bool) string {
	if little {
		return "little"
	}
	return "big"
}
