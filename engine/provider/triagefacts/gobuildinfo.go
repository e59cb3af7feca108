// Package triagefacts reads the binary_triage facts that come from bytes
// alone (ELF notes, Go build information), so every provider that can read
// those bytes reports them alike without importing another provider.
package triagefacts

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/rea-re/rea/engine/provider"
)

// Go build information, read from the bytes the linker writes (the
// .go.buildinfo section, Mach-O __go_buildinfo, or, where section names are
// gone, the 16-byte aligned blob with its magic), the same data
// `go version -m` prints. It survives `-ldflags=-s -w`.
//
// Layout (Go 1.18+): a 32-byte header, "\xff Go buildinf:", pointer size,
// flags (bit 0 big-endian, bit 1 strings inline), then the version string
// and the module information, each a uvarint length and bytes. The module
// information is framed by 16 sentinel bytes on each side. Older linkers
// store pointers to the strings instead: read as a limitation.

const (
	buildInfoHeaderSize = 32
	buildInfoAlign      = 16
	buildInfoFlagInline = 2
	maxGoDeps           = 1000
)

var buildInfoMagic = []byte("\xff Go buildinf:")

var errBuildInfoPointers = errors.New("Go build info uses the pre-1.18 pointer layout, which is not read")

// parseBuildInfoBlob reads the header at the start of p and returns the Go
// version and the module information text.
func parseBuildInfoBlob(p []byte) (version, mod string, err error) {
	if len(p) < buildInfoHeaderSize || !bytes.HasPrefix(p, buildInfoMagic) {
		return "", "", errors.New("no Go build info header")
	}
	if p[15]&buildInfoFlagInline == 0 {
		return "", "", errBuildInfoPointers
	}
	rest := p[buildInfoHeaderSize:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return "", false
		}
		s := string(rest[k : k+int(n)])
		rest = rest[k+int(n):]
		return s, true
	}
	version, ok1 := str()
	mod, ok2 := str()
	if !ok1 || !ok2 || version == "" {
		return "", "", errors.New("truncated Go build info")
	}
	if len(mod) >= 33 && mod[len(mod)-17] == '\n' {
		mod = mod[16 : len(mod)-16]
	} else {
		mod = ""
	}
	return version, mod, nil
}

// parseModInfo parses the module information text (the lines `go version
// -m` prints: path, mod, dep, =>, build).
func parseModInfo(version, mod string) *provider.GoBuildInfo {
	bi := &provider.GoBuildInfo{Version: version, Deps: []provider.GoModule{}, Settings: []provider.GoSetting{}}
	module := func(f []string) provider.GoModule {
		m := provider.GoModule{Path: f[0]}
		if len(f) > 1 {
			m.Version = f[1]
		}
		if len(f) > 2 {
			m.Sum = f[2]
		}
		return m
	}
	var last *provider.GoModule
	for _, line := range strings.Split(mod, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "path":
			bi.Path = f[1]
		case "mod":
			m := module(f[1:])
			bi.Main, last = &m, &m
		case "dep":
			if len(bi.Deps) == maxGoDeps {
				continue
			}
			bi.Deps = append(bi.Deps, module(f[1:]))
			last = &bi.Deps[len(bi.Deps)-1]
		case "=>":
			if last != nil && last.Replace == nil {
				r := module(f[1:])
				last.Replace = &r
			}
		case "build":
			k, v, _ := strings.Cut(strings.Join(f[1:], "\t"), "=")
			bi.Settings = append(bi.Settings, provider.GoSetting{Key: k, Value: v})
		}
	}
	return bi
}

// GoBuildInfo adds toolchain.go and toolchain.language from a build
// info blob (the bytes of .go.buildinfo, from its header on) read at src,
// and returns the limitations of that reading. It is the one reader of the
// build info, for every provider that can read those bytes.
func GoBuildInfo(blob []byte, src string, toolchain map[string]any) []string {
	v, mod, err := parseBuildInfoBlob(blob)
	if err != nil {
		return []string{"triage toolchain: " + err.Error()}
	}
	bi := parseModInfo(v, mod)
	bi.Source = src
	var lims []string
	if len(bi.Deps) == maxGoDeps {
		lims = append(lims, fmt.Sprintf("triage toolchain: Go dependencies listed up to %d", maxGoDeps))
	}
	toolchain["go"] = bi
	toolchain["language"] = provider.Fact{Value: "go", Source: src}
	return lims
}

// FindGoBuildInfo returns data from the first 16-byte aligned build info
// magic on, for a file whose section names are gone; nil when there is none.
func FindGoBuildInfo(data []byte) []byte {
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], buildInfoMagic)
		if i < 0 {
			break
		}
		at := off + i
		if at%buildInfoAlign == 0 {
			return data[at:]
		}
		off = at + 1
	}
	return nil
}
