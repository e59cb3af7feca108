package builtin

import (
	"bytes"
	"strings"
)

// RustToolchain is toolchain.rustc: what the panic-location strings of a
// Rust binary say about the rustc that built its standard library. Official
// builds remap the library's sources to /rustc/<commit-hash>/library/...;
// distribution builds keep their source directory, such as Debian's
// /usr/src/rustc-<version>/library/... Both survive stripping (they are
// data the panics print), and both are heuristics: a string, not a header.
type RustToolchain struct {
	Commit  string `json:"commit,omitempty"`  // the 40-hex commit hash (`rustc -vV` commit-hash)
	Version string `json:"version,omitempty"` // the release (`rustc -vV` release)
}

// maxRustScan bounds the read-only data scanned for the strings.
const maxRustScan = 64 << 20

var (
	rustcCommitPrefix  = []byte("/rustc/")
	rustcVersionPrefix = []byte("/rustc-")
)

// rustPanicLocations records toolchain.rustc from the first panic-location
// path found in the read-only data sections.
func (b *triageBuilder) rustPanicLocations() {
	var rt RustToolchain
	budget := uint64(maxRustScan)
	for _, s := range b.img.sections {
		if !rodataSection(s.name) || s.fsize == 0 || s.off >= uint64(len(b.data)) || budget == 0 {
			continue
		}
		n := min(s.fsize, budget, uint64(len(b.data))-s.off)
		budget -= n
		p := b.data[s.off : s.off+n]
		if rt.Commit == "" {
			rt.Commit = findRustcCommit(p)
		}
		if rt.Version == "" {
			rt.Version = findRustcVersion(p)
		}
		if rt.Commit != "" && rt.Version != "" {
			break
		}
	}
	if rt == (RustToolchain{}) {
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

// findRustcCommit finds "/rustc/<40 hex>/library/" in p and returns the hash.
func findRustcCommit(p []byte) string {
	for {
		i := bytes.Index(p, rustcCommitPrefix)
		if i < 0 {
			return ""
		}
		p = p[i+len(rustcCommitPrefix):]
		if len(p) >= 49 && isHex(p[:40]) && bytes.HasPrefix(p[40:], []byte("/library/")) {
			return string(p[:40])
		}
	}
}

// findRustcVersion finds "/rustc-<x.y.z>/library/" (or "/vendor/", the
// crates a distribution build vendors) in p and returns the release.
func findRustcVersion(p []byte) string {
	for {
		i := bytes.Index(p, rustcVersionPrefix)
		if i < 0 {
			return ""
		}
		p = p[i+len(rustcVersionPrefix):]
		v := leadingVersion(p)
		if v == "" {
			continue
		}
		rest := p[len(v):]
		if bytes.HasPrefix(rest, []byte("/library/")) || bytes.HasPrefix(rest, []byte("/vendor/")) {
			return v
		}
	}
}

func isHex(p []byte) bool {
	for _, c := range p {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
