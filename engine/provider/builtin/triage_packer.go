package builtin

import (
	"bytes"
	"slices"

	"github.com/rea-re/rea/engine/provider"
)

// packerSections are section names packers and protectors give the sections
// they write (PE; UPX also on Mach-O). UPX's own are listed first.
var packerSections = []struct{ name, packer string }{
	{"UPX0", "upx"}, {"UPX1", "upx"}, {"UPX2", "upx"}, {"__TEXT,UPX0", "upx"}, {"__XHDR", "upx"},
	{".aspack", "aspack"}, {".adata", "aspack"},
	{"MPRESS1", "mpress"}, {"MPRESS2", "mpress"}, {".MPRESS1", "mpress"}, {".MPRESS2", "mpress"},
	{"PEC2", "pecompact"}, {"pec1", "pecompact"}, {"pec2", "pecompact"},
	{".petite", "petite"}, {".nsp0", "nspack"}, {".nsp1", "nspack"}, {".nsp2", "nspack"},
	{".themida", "themida"}, {".winlice", "themida"}, {".vmp0", "vmprotect"}, {".vmp1", "vmprotect"},
	{".enigma1", "enigma"}, {".enigma2", "enigma"}, {"kkrunchy", "kkrunchy"}, {".yP", "y0da"},
}

// UPX writes "UPX!" in its l_info header right after the program headers
// (ELF) or in its PackHeader at the end of the PE headers, preceded by its
// release ("4.02\0UPX!"), and again in the PackHeader that ends an ELF (32
// bytes, then a 4-byte offset). Its decompression stub carries "$Id: UPX
// x.yy Copyright ...".
var (
	upxMagic = []byte("UPX!")
	upxID    = []byte("$Id: UPX ")
	upxInfo  = []byte("$Info: This file is packed with the UPX")
)

const (
	upxHeadWindow = 4096 // l_info and the PE PackHeader lie within the first page
	upxTailWindow = 64   // the ELF PackHeader and its offset end the file
	upxIDWindow   = 1 << 20
)

// packer records anomalies.packer from section names and UPX's marks.
func (b *triageBuilder) packer() {
	var p provider.Packer
	add := func(name, sig string) {
		if p.Name == "" {
			p.Name = name
		}
		if p.Name == name && !slices.Contains(p.Signatures, sig) {
			p.Signatures = append(p.Signatures, sig)
		}
	}
	for _, s := range b.img.sections {
		for _, ps := range packerSections {
			if s.name == ps.name {
				add(ps.packer, "section:"+s.name)
			}
		}
	}
	for _, sg := range b.img.segments {
		if sg.name == "__XHDR" {
			add("upx", "segment:__XHDR")
		}
	}
	d := b.data
	head := d[:min(len(d), upxHeadWindow)]
	if i := bytes.Index(head, upxMagic); i >= 0 {
		add("upx", "magic:UPX!@head")
		if v := upxVersionBefore(head[:i]); v != "" && p.Name == "upx" {
			p.Version = v
		}
	}
	if len(d) >= upxTailWindow && bytes.Contains(d[len(d)-upxTailWindow:], upxMagic) {
		add("upx", "magic:UPX!@tail")
	}
	if p.Name == "upx" {
		// The stub's strings confirm a mark found above (alone they are only
		// text, which any program may contain) and give the release; they are
		// searched in the first and last MiB, where UPX puts its stub, so a
		// large file costs nothing.
		for _, w := range [][]byte{d[:min(len(d), upxIDWindow)], d[max(0, len(d)-upxIDWindow):]} {
			if i := bytes.Index(w, upxID); i >= 0 {
				add("upx", "string:$Id: UPX")
				if v := leadingVersion(w[i+len(upxID):]); v != "" && p.Version == "" {
					p.Version = v
				}
				break
			}
		}
		if bytes.Contains(d[:min(len(d), upxIDWindow)], upxInfo) {
			add("upx", "string:$Info: packed with UPX")
		}
	}
	if p.Name != "" {
		b.t.Anomalies["packer"] = fact(p, "heuristic:packer-signature")
	}
}

// upxVersionBefore reads the "x.yy\0" UPX writes just before its PE
// PackHeader's magic, or "".
func upxVersionBefore(p []byte) string {
	if len(p) < 2 || p[len(p)-1] != 0 {
		return ""
	}
	i := len(p) - 1
	for i > 0 && i > len(p)-10 && (p[i-1] == '.' || p[i-1] >= '0' && p[i-1] <= '9') {
		i--
	}
	return leadingVersion(p[i : len(p)-1])
}

// leadingVersion is the dotted number p starts with ("4.02"), or "".
func leadingVersion(p []byte) string {
	n, dots := 0, 0
	for n < len(p) && n < 16 && (p[n] >= '0' && p[n] <= '9' || p[n] == '.' && n > 0) {
		if p[n] == '.' {
			dots++
		}
		n++
	}
	v := bytes.TrimRight(p[:n], ".")
	if dots == 0 || len(v) == 0 || !bytes.Contains(v, []byte(".")) {
		return ""
	}
	return string(v)
}
