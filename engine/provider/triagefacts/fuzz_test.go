package triagefacts

import (
	"encoding/binary"
	"testing"
)

// FuzzGoBuildInfo: the build info header and module text never panic, and
// the module lines parsed stay within the text's bounds.
func FuzzGoBuildInfo(f *testing.F) {
	hdr := append([]byte("\xff Go buildinf:\x08\x02"), make([]byte, 16)...)
	mod := "0123456789abcdef" + "path\tx\nmod\tx\t(devel)\t\ndep\ty\tv1.0.0\th1:abc=\n=>\tz\tv1.1.0\th1:def=\nbuild\tCGO_ENABLED=0\n" + "0123456789abcdef"
	blob := append(append(binary.AppendUvarint(hdr, 6), "go1.26"...), binary.AppendUvarint(nil, uint64(len(mod)))...)
	f.Add(append(blob, mod...))
	f.Add(hdr)
	f.Fuzz(func(t *testing.T, p []byte) {
		v, m, err := parseBuildInfoBlob(p)
		if err != nil {
			return
		}
		bi := parseModInfo(v, m)
		if len(bi.Deps) > maxGoDeps || len(bi.Deps)+len(bi.Settings) > len(m) {
			t.Fatalf("%d deps, %d settings from %d bytes", len(bi.Deps), len(bi.Settings), len(m))
		}
	})
}

// FuzzELFNotes: notes and GNU properties of arbitrary bytes never panic and
// every descriptor lies within the input.
func FuzzELFNotes(f *testing.F) {
	le := binary.LittleEndian
	note := le.AppendUint32(nil, 4)
	note = le.AppendUint32(note, 16)
	note = le.AppendUint32(note, ntGNUPropertyType0)
	note = append(note, "GNU\x00"...)
	note = le.AppendUint32(note, gnuPropertyX86Feature1)
	note = le.AppendUint32(note, 4)
	note = le.AppendUint32(note, 3)
	note = le.AppendUint32(note, 0)
	f.Add(note, true)
	f.Add(note[:20], false)
	f.Fuzz(func(t *testing.T, p []byte, is64 bool) {
		align := uint64(4)
		if is64 {
			align = 8
		}
		total := 0
		for _, n := range parseELFNotes(p, align, le) {
			total += len(n.desc)
			_ = gnuProperties(n.desc, is64, le)
		}
		if total > len(p) {
			t.Fatalf("descriptors of %d bytes from %d", total, len(p))
		}
	})
}
