package builtin

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/provider"
)

// Mach-O load commands and flags not in debug/macho.
const (
	lcCodeSignature    = 0x1d
	lcUUID             = 0x1b
	lcBuildVersion     = 0x32
	lcVersionMinMacOS  = 0x24
	lcVersionMinIOS    = 0x25
	lcEncryptionInfo   = 0x21
	lcEncryptionInfo64 = 0x2c
	mhPIE              = 0x200000
	csMagicEmbedded    = 0xfade0cc0
	csMagicDirectory   = 0xfade0c02
	csAdhoc            = 0x2
	csRequireLV        = 0x2000
	csRuntime          = 0x10000
	csLinkerSigned     = 0x20000
	maxCSBlobs         = 64
)

var machoPlatforms = map[uint32]string{1: "macos", 2: "ios", 3: "tvos", 4: "watchos", 5: "bridgeos", 6: "maccatalyst",
	7: "iossimulator", 8: "tvossimulator", 9: "watchossimulator", 10: "driverkit", 11: "visionos", 12: "visionossimulator"}

// machoVersion prints a nibble-encoded X.Y.Z version as llvm-objdump does
// (X.Y when Z is 0).
func machoVersion(v uint32) string {
	if v&0xff == 0 {
		return fmt.Sprintf("%d.%d", v>>16, v>>8&0xff)
	}
	return fmt.Sprintf("%d.%d.%d", v>>16, v>>8&0xff, v&0xff)
}

func (b *triageBuilder) macho() {
	id, hd := b.t.Identity, b.t.Hardening
	id["bitness"] = fact(map[bool]int{true: 64, false: 32}[b.img.is64], "header:magic")
	f, err := macho.NewFile(bytes.NewReader(b.data))
	if err != nil {
		b.limit("triage: Mach-O headers unreadable: %v", err)
		return
	}
	id["endianness"] = fact(endianName(f.ByteOrder == binary.LittleEndian), "header:magic")
	switch f.Type {
	case macho.TypeExec:
		id["file_type"] = fact("executable", "header:filetype")
	case macho.TypeDylib:
		id["file_type"] = fact("shared_library", "header:filetype")
	case macho.TypeBundle:
		id["file_type"] = fact("bundle", "header:filetype")
	case macho.TypeObj:
		id["file_type"] = fact("object", "header:filetype")
	}
	if f.Type == macho.TypeExec {
		hd["pie"] = fact(f.Flags&mhPIE != 0, "header:flags.MH_PIE")
	}
	bo := f.ByteOrder
	signed := false
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) < 8 {
			continue
		}
		switch bo.Uint32(raw) {
		case lcUUID:
			if len(raw) >= 24 {
				u := raw[8:24]
				id["build_id"] = fact(strings.ToUpper(fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])), "load_command:LC_UUID")
			}
		case lcBuildVersion:
			if len(raw) >= 20 {
				p := machoPlatforms[bo.Uint32(raw[8:])]
				if p == "" {
					p = fmt.Sprint(bo.Uint32(raw[8:]))
				}
				b.t.Toolchain["build_version"] = fact(map[string]any{"platform": p, "minos": machoVersion(bo.Uint32(raw[12:])),
					"sdk": machoVersion(bo.Uint32(raw[16:]))}, "load_command:LC_BUILD_VERSION")
			}
		case lcVersionMinMacOS, lcVersionMinIOS:
			if len(raw) >= 16 {
				p := map[uint32]string{lcVersionMinMacOS: "macos", lcVersionMinIOS: "ios"}[bo.Uint32(raw)]
				b.t.Toolchain["build_version"] = fact(map[string]any{"platform": p, "minos": machoVersion(bo.Uint32(raw[8:])),
					"sdk": machoVersion(bo.Uint32(raw[12:]))}, "load_command:LC_VERSION_MIN")
			}
		case lcEncryptionInfo, lcEncryptionInfo64:
			if len(raw) >= 20 {
				hd["encryption"] = fact(map[string]any{"cryptid": bo.Uint32(raw[16:]), "cryptoff": bo.Uint32(raw[8:]),
					"cryptsize": bo.Uint32(raw[12:])}, "load_command:LC_ENCRYPTION_INFO")
			}
		case lcCodeSignature:
			if len(raw) >= 16 {
				signed = true
				b.codeSignature(uint64(bo.Uint32(raw[8:])), uint64(bo.Uint32(raw[12:])))
			}
		}
	}
	if !signed {
		hd["code_signature"] = fact(map[string]any{"present": false}, "load_command:LC_CODE_SIGNATURE(absent)")
	}
	restrict, swift, objc := false, false, false
	var dwarf []string
	for _, s := range f.Sections {
		switch {
		case s.Seg == "__RESTRICT":
			restrict = true
		case strings.HasPrefix(s.Name, "__swift5_"):
			swift = true
		case strings.HasPrefix(s.Name, "__objc_"):
			objc = true
		case s.Seg == "__DWARF":
			dwarf = append(dwarf, s.Name)
		}
	}
	hd["restrict_segment"] = fact(restrict, "load_command:LC_SEGMENT.__RESTRICT")
	if swift {
		b.t.Toolchain["swift"] = fact(true, "section:__swift5_*")
	}
	if objc {
		b.t.Toolchain["objective_c"] = fact(true, "section:__objc_*")
	}
	if dwarf == nil {
		dwarf = []string{}
	}
	id["debug_info"] = fact(map[string]any{"present": len(dwarf) > 0, "sections": dwarf}, "section:__DWARF")
	stripped := true
	if f.Symtab != nil {
		for _, s := range f.Symtab.Syms {
			if s.Type&0x0e != 0 || s.Sect != 0 { // N_TYPE other than N_UNDF
				stripped = false
				break
			}
		}
	}
	id["stripped"] = fact(stripped, "load_command:LC_SYMTAB")
	wx := []string{}
	for _, sg := range b.img.segments {
		if sg.w && sg.x {
			wx = append(wx, sg.name)
		}
	}
	b.t.Anomalies["wx_segments"] = fact(wx, "load_command:LC_SEGMENT.initprot")
}

// parseCodeDirectoryFlags finds the CodeDirectory of an embedded signature
// superblob (big-endian, whatever the file's order) and returns its flags.
func parseCodeDirectoryFlags(p []byte) (uint32, bool) {
	be := binary.BigEndian
	if len(p) < 12 || be.Uint32(p) != csMagicEmbedded {
		return 0, false
	}
	n := min(be.Uint32(p[8:]), maxCSBlobs)
	for i := uint32(0); i < n; i++ {
		e := 12 + uint64(i)*8
		if e+8 > uint64(len(p)) {
			break
		}
		if be.Uint32(p[e:]) != 0 { // CSSLOT_CODEDIRECTORY
			continue
		}
		off := uint64(be.Uint32(p[e+4:]))
		if off+16 > uint64(len(p)) || be.Uint32(p[off:]) != csMagicDirectory {
			return 0, false
		}
		return be.Uint32(p[off+12:]), true
	}
	return 0, false
}

func (b *triageBuilder) codeSignature(off, size uint64) {
	cs := provider.CodeSignature{Present: true}
	if off < uint64(len(b.data)) {
		if fl, ok := parseCodeDirectoryFlags(b.data[off:min(satAdd(off, size), uint64(len(b.data)))]); ok {
			cs.Flags, cs.Adhoc, cs.LinkerSigned = fl, fl&csAdhoc != 0, fl&csLinkerSigned != 0
			cs.HardenedRuntime, cs.LibraryValidation = fl&csRuntime != 0, fl&csRequireLV != 0
		} else {
			b.limit("triage hardening: the code signature's CodeDirectory is not readable")
		}
	}
	b.t.Hardening["code_signature"] = fact(cs, "load_command:LC_CODE_SIGNATURE")
	b.limit("triage hardening: the code signature's validity is not checked (only its presence and flags)")
}
