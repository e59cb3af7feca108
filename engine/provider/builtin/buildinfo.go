package builtin

import "github.com/rea-re/rea/engine/provider/triagefacts"

// findBuildInfo locates the Go build info blob (triagefacts reads it): the
// named section, else (Go binaries and files without section names) the
// first 16-byte aligned magic.
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
	if blob := triagefacts.FindGoBuildInfo(data); blob != nil {
		return blob, "heuristic:buildinfo-magic"
	}
	return nil, ""
}

func (b *triageBuilder) goBuildInfo() {
	blob, src := findBuildInfo(b.img, b.data)
	if blob == nil {
		return
	}
	b.lims = append(b.lims, triagefacts.GoBuildInfo(blob, src, b.t.Toolchain)...)
}
