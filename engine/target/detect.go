// Package target identifies what REA is asked to open: by content, never by
// file extension (CONTRACTS.md §2.1), and hashes it with progress and
// cancellation. A header that Go's debug/* packages reject is an unsupported
// format, not a half-identified target.
package target

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rea-re/rea/engine/fault"
)

// Formats and kinds of CONTRACTS.md §2.1.
const (
	KindExecutable = "executable"
	KindArchive    = "archive"
	KindDirectory  = "directory"
)

// Detection is what the content says the target is.
type Detection struct {
	Format       string
	Kind         string
	Architecture string // "" when unknown
}

// MaxFatArch bounds nfat_arch: 0xcafebabe is also the Java class magic, whose
// next field (a version number) is large, so a small count means Mach-O.
const MaxFatArch = 20

// Unavailable builds target_unavailable with the reason of CONTRACTS.md §1.7.
func Unavailable(path, reason string) *fault.Error {
	msg := map[string]string{
		"no_target":          "No target is open.",
		"not_found":          "The path does not exist.",
		"unreadable":         "The path cannot be read.",
		"unsupported_format": "The content is not a supported binary, archive or directory.",
	}[reason]
	action := map[string]string{
		"no_target":          "Open a target with open_binary first.",
		"not_found":          "Check the path and call again with an existing absolute path.",
		"unreadable":         "Grant read permission to the REA process, or choose another file.",
		"unsupported_format": "Open an ELF, PE or Mach-O binary, a zip-family archive, an ASAR archive or a directory.",
	}[reason]
	d := map[string]any{"reason": reason}
	if path != "" {
		d["path"] = path
	}
	return fault.New(fault.TargetUnavailable, msg, action, d)
}

// Resolve canonicalizes an absolute path (EvalSymlinks) and classifies I/O
// failures. It does not read content.
func Resolve(path string) (string, fs.FileInfo, error) {
	if !filepath.IsAbs(path) {
		return "", nil, fault.Invalid("open_binary", fault.Issue{Path: "/path", Reason: "invalid_value", Message: "path must be absolute"})
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, ioFault(path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, ioFault(real, err)
	}
	return real, fi, nil
}

func ioFault(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Unavailable(path, "not_found").WithCause(err)
	case errors.Is(err, fs.ErrPermission):
		return Unavailable(path, "unreadable").WithCause(err)
	}
	return Unavailable(path, "unreadable").WithCause(err)
}

// Detect classifies the file or directory at real (already resolved).
func Detect(real string, fi fs.FileInfo) (Detection, error) {
	if fi.IsDir() {
		f, err := os.Open(real)
		if err != nil {
			return Detection{}, ioFault(real, err)
		}
		defer f.Close()
		if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
			return Detection{}, ioFault(real, err)
		}
		return Detection{Format: "directory", Kind: KindDirectory}, nil
	}
	if !fi.Mode().IsRegular() {
		return Detection{}, Unavailable(real, "unsupported_format")
	}
	f, err := os.Open(real)
	if err != nil {
		return Detection{}, ioFault(real, err)
	}
	defer f.Close()
	return DetectReader(f, fi.Size(), real)
}

// DetectReader classifies content of the given size; name is used only to
// refine the zip family by extension.
func DetectReader(r io.ReaderAt, size int64, name string) (d Detection, err error) {
	defer func() {
		// debug/* parsers are not hardened against every malformed header.
		if p := recover(); p != nil {
			d, err = Detection{}, Unavailable(name, "unsupported_format")
		}
	}()
	var head [16]byte
	n, rerr := r.ReadAt(head[:], 0)
	if rerr != nil && !errors.Is(rerr, io.EOF) {
		return Detection{}, ioFault(name, rerr)
	}
	h := head[:n]
	unsupported := Unavailable(name, "unsupported_format")
	switch {
	case bytes.HasPrefix(h, []byte("\x7fELF")):
		f, err := elf.NewFile(r)
		if err != nil {
			return Detection{}, unsupported.WithCause(err)
		}
		return Detection{Format: "elf", Kind: KindExecutable, Architecture: ELFArch(f.Machine)}, nil
	case bytes.HasPrefix(h, []byte("MZ")):
		f, err := pe.NewFile(r)
		if err != nil {
			return Detection{}, unsupported.WithCause(err)
		}
		return Detection{Format: "pe", Kind: KindExecutable, Architecture: PEArch(f.Machine)}, nil
	case len(h) >= 8 && binary.BigEndian.Uint32(h) == macho.MagicFat:
		if binary.BigEndian.Uint32(h[4:]) >= MaxFatArch {
			return Detection{}, unsupported
		}
		ff, err := macho.NewFatFile(r)
		if err != nil {
			return Detection{}, unsupported.WithCause(err)
		}
		a := UniversalSlice(ff)
		return Detection{Format: "mach-o-universal", Kind: KindExecutable, Architecture: MachOArch(a.Cpu)}, nil
	case len(h) >= 4 && isMachOMagic(binary.LittleEndian.Uint32(h)):
		f, err := macho.NewFile(r)
		if err != nil {
			return Detection{}, unsupported.WithCause(err)
		}
		return Detection{Format: "mach-o", Kind: KindExecutable, Architecture: MachOArch(f.Cpu)}, nil
	case bytes.HasPrefix(h, []byte("PK\x03\x04")) || bytes.HasPrefix(h, []byte("PK\x05\x06")):
		return Detection{Format: zipFamily(name), Kind: KindArchive}, nil
	case isASAR(r, h, size):
		return Detection{Format: "asar", Kind: KindArchive}, nil
	}
	return Detection{}, unsupported
}

func isMachOMagic(m uint32) bool {
	switch m {
	case macho.Magic32, macho.Magic64:
		return true
	}
	return false
}

// UniversalSlice picks the slice REA analyzes: arm64, else x86_64, else the first.
func UniversalSlice(ff *macho.FatFile) macho.FatArch {
	for _, want := range []macho.Cpu{macho.CpuArm64, macho.CpuAmd64} {
		for _, a := range ff.Arches {
			if a.Cpu == want {
				return a
			}
		}
	}
	return ff.Arches[0]
}

func zipFamily(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".apk":
		return "apk"
	case ".ipa":
		return "ipa"
	case ".msix":
		return "msix"
	case ".appx":
		return "appx"
	}
	return "zip"
}

// isASAR checks the pickle framing of CONTRACTS.md §10.4: [4][H][payload][J]{JSON.
func isASAR(r io.ReaderAt, h []byte, size int64) bool {
	if len(h) < 16 || binary.LittleEndian.Uint32(h) != 4 {
		return false
	}
	hs := int64(binary.LittleEndian.Uint32(h[4:]))
	j := int64(binary.LittleEndian.Uint32(h[12:]))
	if hs < 8 || 8+hs > size || j < 2 || 16+j > 8+hs {
		return false
	}
	var b [1]byte
	if _, err := r.ReadAt(b[:], 16); err != nil {
		return false
	}
	return b[0] == '{'
}

// ELFArch names an ELF machine in REA's architecture vocabulary ("" when unknown).
func ELFArch(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_386:
		return "x86"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_AARCH64:
		return "arm64"
	}
	return ""
}

// PEArch names a PE machine ("" when unknown).
func PEArch(m uint16) string {
	switch m {
	case pe.IMAGE_FILE_MACHINE_AMD64:
		return "x86_64"
	case pe.IMAGE_FILE_MACHINE_I386:
		return "x86"
	case pe.IMAGE_FILE_MACHINE_ARM64:
		return "arm64"
	case pe.IMAGE_FILE_MACHINE_ARMNT, pe.IMAGE_FILE_MACHINE_ARM:
		return "arm"
	}
	return ""
}

// MachOArch names a Mach-O CPU type ("" when unknown).
func MachOArch(c macho.Cpu) string {
	switch c {
	case macho.CpuAmd64:
		return "x86_64"
	case macho.Cpu386:
		return "x86"
	case macho.CpuArm64:
		return "arm64"
	case macho.CpuArm:
		return "arm"
	}
	return ""
}
