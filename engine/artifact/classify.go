package artifact

import (
	"bytes"
	"encoding/binary"
	"path"
	"strings"
)

// Node kinds (§10.3).
const (
	KindContainer       = "container"
	KindExecutable      = "executable"
	KindDynamicLibrary  = "dynamic-library"
	KindNativeAddon     = "native-addon"
	KindJavaScript      = "javascript"
	KindSourceMap       = "source-map"
	KindPlist           = "plist"
	KindEntitlements    = "entitlements"
	KindResource        = "resource"
	KindPackageMetadata = "package-metadata"
	KindUnknown         = "unknown"
)

// nodeClass is what the bytes (and, for text kinds, the name) say a file is.
type nodeClass struct {
	Kind, Format string
	MediaType    string // "" = null
	Arch         string // "" = null
}

// containerFormat names the container format of a file's head, "" when it
// is not one REA expands. The zip family is refined by extension, as for
// targets (§2.1).
func containerFormat(name string, head []byte, size int64) string {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return zipFamily(name)
	case sniffASAR(head, size):
		return FormatASAR
	}
	return ""
}

func zipFamily(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".apk":
		return FormatAPK
	case ".ipa":
		return FormatIPA
	case ".msix":
		return FormatMSIX
	case ".appx":
		return FormatAPPX
	}
	return FormatZip
}

// classify names a file's node kind and format from its first bytes, and
// for formats without magic from its name.
func classify(name string, head []byte, size int64) nodeClass {
	base := path.Base(name)
	ext := strings.ToLower(path.Ext(base))
	addon := ext == ".node"
	bin := func(format, kind, arch string) nodeClass {
		if addon && kind != KindContainer {
			kind = KindNativeAddon
		}
		return nodeClass{Kind: kind, Format: format, MediaType: "application/octet-stream", Arch: arch}
	}
	if f := containerFormat(name, head, size); f != "" {
		mt := "application/zip"
		if f == FormatASAR {
			mt = "application/octet-stream"
		}
		return nodeClass{Kind: KindContainer, Format: f, MediaType: mt}
	}
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")) && len(head) >= 20:
		var bo binary.ByteOrder = binary.LittleEndian
		if head[5] == 2 {
			bo = binary.BigEndian
		}
		kind := KindExecutable
		if bo.Uint16(head[16:]) == 3 && (strings.Contains(base, ".so") || addon) { // ET_DYN named as a library
			kind = KindDynamicLibrary
		}
		return bin("elf", kind, elfArch(bo.Uint16(head[18:])))
	case bytes.HasPrefix(head, []byte("MZ")) && len(head) >= 0x40:
		kind, arch := KindExecutable, ""
		if off := int(binary.LittleEndian.Uint32(head[0x3c:])); off > 0 && off+24 <= len(head) && bytes.HasPrefix(head[off:], []byte("PE\x00\x00")) {
			arch = peArch(binary.LittleEndian.Uint16(head[off+4:]))
			if binary.LittleEndian.Uint16(head[off+22:])&0x2000 != 0 { // IMAGE_FILE_DLL
				kind = KindDynamicLibrary
			}
		}
		return bin("pe", kind, arch)
	case len(head) >= 16 && (binary.LittleEndian.Uint32(head) == 0xfeedface || binary.LittleEndian.Uint32(head) == 0xfeedfacf):
		kind := KindExecutable
		switch binary.LittleEndian.Uint32(head[12:]) { // filetype
		case 6, 8: // MH_DYLIB, MH_BUNDLE
			kind = KindDynamicLibrary
		}
		return bin("mach-o", kind, machoArch(binary.LittleEndian.Uint32(head[4:])))
	case len(head) >= 16 && binary.BigEndian.Uint32(head) == 0xcafebabe && binary.BigEndian.Uint32(head[4:]) < 20:
		return bin("mach-o-universal", KindExecutable, machoArch(binary.BigEndian.Uint32(head[8:])))
	case bytes.HasPrefix(head, []byte("bplist00")) || ext == ".plist":
		return nodeClass{Kind: KindPlist, Format: "file", MediaType: "application/x-plist"}
	}
	switch {
	case ext == ".js" || ext == ".mjs" || ext == ".cjs":
		return nodeClass{Kind: KindJavaScript, Format: "javascript", MediaType: "text/javascript"}
	case ext == ".map":
		return nodeClass{Kind: KindSourceMap, Format: "file", MediaType: "application/json"}
	case ext == ".entitlements" || ext == ".xcent":
		return nodeClass{Kind: KindEntitlements, Format: "file", MediaType: "application/x-plist"}
	case base == "package.json" || base == "AndroidManifest.xml" || base == "MANIFEST.MF" || base == "AppxManifest.xml":
		mt := "application/xml"
		switch base {
		case "package.json":
			mt = "application/json"
		case "MANIFEST.MF":
			mt = "text/plain"
		}
		return nodeClass{Kind: KindPackageMetadata, Format: "file", MediaType: mt}
	case addon:
		return nodeClass{Kind: KindNativeAddon, Format: "unknown"}
	}
	return nodeClass{Kind: KindResource, Format: "file"}
}

func elfArch(m uint16) string {
	switch m {
	case 62:
		return "x86_64"
	case 3:
		return "x86"
	case 40:
		return "arm"
	case 183:
		return "arm64"
	}
	return ""
}

func peArch(m uint16) string {
	switch m {
	case 0x8664:
		return "x86_64"
	case 0x14c:
		return "x86"
	case 0xaa64:
		return "arm64"
	case 0x1c0, 0x1c4:
		return "arm"
	}
	return ""
}

func machoArch(c uint32) string {
	switch c {
	case 0x01000007:
		return "x86_64"
	case 7:
		return "x86"
	case 0x0100000c:
		return "arm64"
	case 12:
		return "arm"
	}
	return ""
}
