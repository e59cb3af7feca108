package builtin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
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

var buildInfoMagic = []byte("\xff Go buildinf:")

const (
	buildInfoHeaderSize = 32
	buildInfoAlign      = 16
	buildInfoFlagInline = 2
	maxGoDeps           = 1000
)

var errBuildInfoPointers = errors.New("Go build info uses the pre-1.18 pointer layout, which is not read")

// GoModule is one module of the build info.
type GoModule struct {
	Path    string    `json:"path"`
	Version string    `json:"version"`
	Sum     string    `json:"sum,omitempty"`
	Replace *GoModule `json:"replace,omitempty"`
}

// GoSetting is one build setting (key=value).
type GoSetting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// GoBuildInfo is toolchain.go.
type GoBuildInfo struct {
	Version  string      `json:"version"`
	Path     string      `json:"path,omitempty"`
	Main     *GoModule   `json:"main,omitempty"`
	Deps     []GoModule  `json:"deps"`
	Settings []GoSetting `json:"settings"`
	Source   string      `json:"source"`
}

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
func parseModInfo(version, mod string) *GoBuildInfo {
	bi := &GoBuildInfo{Version: version, Deps: []GoModule{}, Settings: []GoSetting{}}
	module := func(f []string) GoModule {
		m := GoModule{Path: f[0]}
		if len(f) > 1 {
			m.Version = f[1]
		}
		if len(f) > 2 {
			m.Sum = f[2]
		}
		return m
	}
	var last *GoModule
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
			bi.Settings = append(bi.Settings, GoSetting{Key: k, Value: v})
		}
	}
	return bi
}

// findBuildInfo locates the build info blob: the named section, else (Go
// binaries and files without section names) the first 16-byte aligned magic.
func findBuildInfo(img *image, data []byte) ([]byte, string) {
	for _, s := range img.sections {
		switch s.name {
		case ".go.buildinfo", "__DATA,__go_buildinfo", "__DATA_CONST,__go_buildinfo":
			if s.fsize > 0 && s.off < uint64(len(data)) {
				return data[s.off:min(satAdd(s.off, s.fsize), uint64(len(data)))], "section:" + s.name
			}
		}
	}
	if img.pcln == nil && len(img.sections) > 0 {
		return nil, "" // not a Go binary: no scan of its bytes
	}
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], buildInfoMagic)
		if i < 0 {
			break
		}
		at := off + i
		if at%buildInfoAlign == 0 {
			return data[at:], "heuristic:buildinfo-magic"
		}
		off = at + 1
	}
	return nil, ""
}

func (b *triageBuilder) goBuildInfo() {
	blob, src := findBuildInfo(b.img, b.data)
	if blob == nil {
		return
	}
	b.lims = append(b.lims, GoBuildInfoFacts(blob, src, b.t.Toolchain)...)
}

// GoBuildInfoFacts adds toolchain.go and toolchain.language from a build
// info blob (the bytes of .go.buildinfo, from its header on) read at src,
// and returns the limitations of that reading. It is the one reader of the
// build info, for every provider that can read those bytes.
func GoBuildInfoFacts(blob []byte, src string, toolchain map[string]any) []string {
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
	toolchain["language"] = fact("go", src)
	return lims
}
