package builtin

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// FuzzCodeView: an RSDS record of arbitrary bytes never panics and its PDB
// path lies within the record.
func FuzzCodeView(f *testing.F) {
	f.Add(append([]byte("RSDS0123456789abcdef\x01\x00\x00\x00"), "C:\\b\\x.pdb\x00"...))
	f.Add([]byte("RSDS"))
	f.Fuzz(func(t *testing.T, p []byte) {
		if cv, ok := parseCodeView(p); ok && (len(cv.PDB) > len(p) || len(cv.GUID) != 32) {
			t.Fatalf("%+v from %d bytes", cv, len(p))
		}
	})
}

// richStub builds a DOS stub holding a Rich header of entries, XOR-ed with key.
func richStub(key uint32, entries []provider.RichEntry) []byte {
	le := binary.LittleEndian
	p := make([]byte, 0x80)
	p = le.AppendUint32(p, 0x536e6144^key)
	for range 3 {
		p = le.AppendUint32(p, key)
	}
	for _, e := range entries {
		p = le.AppendUint32(p, (uint32(e.Product)<<16|uint32(e.Build))^key)
		p = le.AppendUint32(p, e.Count^key)
	}
	p = append(p, "Rich"...)
	return le.AppendUint32(le.AppendUint32(p, key), 0)
}

// FuzzRichHeader: a Rich header of arbitrary bytes never panics, and the
// entries read fit in the stub.
func FuzzRichHeader(f *testing.F) {
	f.Add(richStub(0x1234abcd, []provider.RichEntry{{Product: 0x0104, Build: 30159, Count: 12}, {Product: 0x0102, Build: 30159, Count: 1}}))
	f.Add(richStub(0, nil))
	f.Fuzz(func(t *testing.T, p []byte) {
		if es, ok := parseRich(p); ok && len(es)*8 > len(p) {
			t.Fatalf("%d entries from %d bytes", len(es), len(p))
		}
	})
}

// FuzzCodeDirectory: the embedded signature superblob of arbitrary bytes
// never panics.
func FuzzCodeDirectory(f *testing.F) {
	be := binary.BigEndian
	p := be.AppendUint32(nil, csMagicEmbedded)
	p = be.AppendUint32(p, 44)
	p = be.AppendUint32(p, 1)
	p = be.AppendUint32(p, 0)
	p = be.AppendUint32(p, 20)
	p = be.AppendUint32(p, csMagicDirectory)
	p = be.AppendUint32(p, 24)
	p = be.AppendUint32(p, 0x20400)
	p = be.AppendUint32(p, csAdhoc|csRuntime)
	f.Add(p)
	f.Add(p[:16])
	f.Fuzz(func(t *testing.T, p []byte) { parseCodeDirectoryFlags(p) })
}

// FuzzUPXVersion: the version readers of UPX's marks stay within their
// bytes and return a dotted number or "".
func FuzzUPXVersion(f *testing.F) {
	f.Add([]byte("4.02\x00"))
	f.Add([]byte("x\x00"))
	f.Add([]byte("3.96 Copyright"))
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, v := range []string{upxVersionBefore(p), leadingVersion(p)} {
			if v != "" && (len(v) > 16 || !strings.Contains(v, ".") || strings.Trim(v, "0123456789.") != "") {
				t.Fatalf("version %q from %q", v, p)
			}
		}
	})
}

// FuzzRustcStrings: the panic-location readers return a 40-hex hash or a
// dotted release found in their input, or "".
func FuzzRustcStrings(f *testing.F) {
	f.Add([]byte("x/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/x.rs"))
	f.Add([]byte("/usr/src/rustc-1.63.0/library/std/src/x.rs/rustc-"))
	f.Fuzz(func(t *testing.T, p []byte) {
		var rt provider.RustToolchain
		findRustc(p, &rt)
		if h := rt.Commit; h != "" && (len(h) != 40 || !strings.Contains(string(p), "/rustc/"+h+"/library/")) {
			t.Fatalf("commit %q", h)
		}
		if v := rt.Version; v != "" && !strings.Contains(string(p), "/rustc-"+v+"/") {
			t.Fatalf("version %q", v)
		}
	})
}
