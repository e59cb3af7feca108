package builtin

import (
	"bytes"
	"strings"

	"github.com/rea-re/rea/engine/provider"
)

// maxRustScan bounds the read-only data scanned for the strings.
const maxRustScan = 64 << 20

// rustcPrefix starts both path forms; one pass over the data finds both
// (searching for the common prefix once costs a fraction of two searches on
// a large non-Rust .rodata, where it never matches).
var rustcPrefix = []byte("/rustc")

// rustPanicLocations records toolchain.rustc from the first panic-location
// paths found in the read-only data sections.
func (b *triageBuilder) rustPanicLocations() {
	var rt provider.RustToolchain
	budget := uint64(maxRustScan)
	for _, s := range b.img.sections {
		if !rodataSection(s.name) || s.fsize == 0 || s.off >= uint64(len(b.data)) || budget == 0 {
			continue
		}
		n := min(s.fsize, budget, uint64(len(b.data))-s.off)
		budget -= n
		if findRustc(b.data[s.off:s.off+n], &rt) {
			break
		}
	}
	if rt == (provider.RustToolchain{}) {
		return
	}
	const src = "heuristic:rustc-panic-location-strings"
	b.t.Toolchain["rustc"] = fact(rt, src)
	if _, set := b.t.Toolchain["language"]; !set {
		b.t.Toolchain["language"] = fact("rust", src)
	}
}

// rodataSection names the sections of read-only data (ELF, PE, Mach-O).
func rodataSection(name string) bool {
	return strings.HasPrefix(name, ".rodata") || name == ".rdata" ||
		strings.HasSuffix(name, ",__const") || strings.HasSuffix(name, ",__cstring")
}

// findRustc fills rt's empty fields from the paths in p:
// "/rustc/<40 hex>/library/" gives the commit, "/rustc-<x.y.z>/library/"
// (or "/vendor/", the crates a distribution build vendors) the release. It
// reports whether both are known.
func findRustc(p []byte, rt *provider.RustToolchain) bool {
	for rt.Commit == "" || rt.Version == "" {
		i := bytes.Index(p, rustcPrefix)
		if i < 0 || i+len(rustcPrefix) >= len(p) {
			break
		}
		p = p[i+len(rustcPrefix):]
		switch p[0] {
		case '/':
			if q := p[1:]; rt.Commit == "" && len(q) >= 49 && isHex(q[:40]) && bytes.HasPrefix(q[40:], []byte("/library/")) {
				rt.Commit = string(q[:40])
			}
		case '-':
			q := p[1:]
			if v := leadingVersion(q); v != "" && rt.Version == "" {
				if rest := q[len(v):]; bytes.HasPrefix(rest, []byte("/library/")) || bytes.HasPrefix(rest, []byte("/vendor/")) {
					rt.Version = v
				}
			}
		}
	}
	return rt.Commit != "" && rt.Version != ""
}

func isHex(p []byte) bool {
	for _, c := range p {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
