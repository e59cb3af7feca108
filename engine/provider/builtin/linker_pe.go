package builtin

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// PE imports and exports as the Windows loader binds them:
//
//   - An import is one entry of a descriptor of the import or delay-load
//     directory (peImportTables): a name (the hint is not used) or an
//     ordinal, bound to the descriptor's DLL. Its slot is the IAT entry;
//     its stub the `jmp [slot]` thunk at a named address (the symbol pass
//     names the import directory's thunks, pecalls.go), when there is one.
//   - An export by name is found by binary search of the name pointer
//     table with an exact, case-sensitive comparison, as the loader does
//     (so a table that is not sorted can hide a name, for the loader too);
//     by ordinal, through the export address table at ordinal - base. An
//     entry whose RVA lies inside the export directory is a forwarder
//     ("NTDLL.RtlAllocateHeap", "NTDLL.#5"), reported and not followed:
//     the DLL is the text before the last '.', with ".dll" added when it
//     has no extension (as Wine's loader reads it).

// peExportTable locates the export directory (no file bytes: lookups read
// the client's mapping).
type peExportTable struct {
	dir            peExportDir
	ok             bool
	dirRVA, dirEnd uint64
}

func buildPELink(ctx context.Context, img *image, data []byte, six *symIndex) (*linkIndex, error) {
	info := img.pe
	lx := &linkIndex{pe: &peExportTable{}}
	if rva, sz := uint64(info.exportDir[0]), uint64(info.exportDir[1]); rva != 0 && sz != 0 {
		d, ok, lim := decodePEExportDir(info, data, rva)
		lx.pe.dir, lx.pe.ok, lx.pe.dirRVA, lx.pe.dirEnd = d, ok, rva, rva+sz
		if lim != "" {
			lx.limitations = append(lx.limitations, lim)
		}
	}
	var lims []string
	tables := peImportTables(img, data, &lims)
	lx.limitations = append(lx.limitations, lims...)
	ptr, ordFlag := uint64(4), uint64(1)<<31
	if img.is64 {
		ptr, ordFlag = 8, 1<<63
	}
	lx.byAddr = map[uint64]int{}
	for _, t := range tables {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, v := range t.entries {
			im := linkImport{library: t.dep.Name, lookup: provider.LookupLibrary,
				slot: info.imageBase + t.iat + uint64(i)*ptr, hasSlot: true}
			if v&ordFlag != 0 {
				im.ordinal, im.byOrdinal = int(v&0xffff), true
			} else if no, ok := info.rvaOff(v & 0x7fffffff); ok {
				o, n, ok := cstring(data, no+2, uint64(len(data)), 0)
				if !ok || n == 0 {
					continue
				}
				im.name = string(data[o : o+uint64(n)])
			} else {
				continue
			}
			lx.addImport(im)
		}
	}
	// The thunks, lowest address first: one per slot. The symbol pass
	// found those of the import directory (pecalls.go); a delay-load
	// thunk is found where a symbol names it.
	for i := range six.syms {
		s := &six.syms[i]
		if i > 0 && six.syms[i-1].addr == s.addr || s.kind == kindImport || s.kind == kindObject {
			continue
		}
		slot, _, ok := iatThunkSlot(img, data, s.addr)
		if !ok {
			continue
		}
		if k, ok := lx.byAddr[slot]; ok && !lx.imports[k].hasStub {
			lx.imports[k].stub, lx.imports[k].hasStub = s.addr, true
			lx.indexAddr(k)
		}
	}
	return lx, nil
}

// peImportMatcher parses "Name", "DLL!Name", "#12" or "DLL!#12" (DLL
// names compared without case, as Windows compares file names).
func peImportMatcher(name string) (func(*linkImport) bool, error) {
	dll, sym, qualified := strings.Cut(name, "!")
	if !qualified {
		dll, sym = "", name
	}
	if sym == "" || qualified && dll == "" {
		return nil, fault.Invalid(provider.OpResolveImport, fault.Issue{Path: "/name", Reason: "invalid_format",
			Message: "Write Name, DLL!Name, #ordinal or DLL!#ordinal."})
	}
	libOK := func(im *linkImport) bool { return !qualified || strings.EqualFold(im.library, dll) }
	if strings.HasPrefix(sym, "#") {
		n, err := strconv.ParseUint(sym[1:], 10, 16)
		if err != nil {
			return nil, fault.Invalid(provider.OpResolveImport, fault.Issue{Path: "/name", Reason: "invalid_format",
				Message: "An ordinal is #N with N a decimal number below 65536."})
		}
		return func(im *linkImport) bool { return libOK(im) && im.byOrdinal && im.ordinal == int(n) }, nil
	}
	return func(im *linkImport) bool { return libOK(im) && !im.byOrdinal && im.name == sym }, nil
}

// lookup finds an export by name (binary search) or by ordinal.
func (x *peExportTable) lookup(img *image, data []byte, q provider.ExportQuery) (provider.Export, uint64, bool) {
	if !x.ok {
		return provider.Export{}, 0, false
	}
	d := &x.dir
	var idx uint64
	if q.Ordinal != nil {
		o := uint64(*q.Ordinal)
		if *q.Ordinal < 0 || o < d.ordBase || o-d.ordBase >= d.nfuncs {
			return provider.Export{}, 0, false
		}
		idx = o - d.ordBase
	} else {
		found := false
		lo, hi := uint64(0), d.nnames
		for lo < hi {
			mid := lo + (hi-lo)/2
			o, n, k, ok := d.nameAt(img.pe, data, mid)
			if !ok {
				return provider.Export{}, 0, false // an unreadable name stops the loader's search too
			}
			switch c := bytes.Compare([]byte(q.Name), data[o:o+uint64(n)]); {
			case c < 0:
				hi = mid
			case c > 0:
				lo = mid + 1
			default:
				idx, found = k, true
			}
			if found {
				break
			}
		}
		if !found {
			return provider.Export{}, 0, false
		}
	}
	rva := d.funcAt(data, idx)
	if rva == 0 {
		return provider.Export{}, 0, false
	}
	if rva >= x.dirRVA && rva < x.dirEnd {
		f, ok := peForwarder(img.pe, data, rva)
		if !ok {
			return provider.Export{Limitations: []string{"the export is a forwarder whose text cannot be read"}}, 0, false
		}
		return provider.Export{Forwarder: f}, 0, true
	}
	addr, _ := peExportAddr(img, rva)
	return provider.Export{}, addr, true
}

// peForwarder reads the forwarder string at rva: "DLL.Name" or "DLL.#N".
func peForwarder(info *peInfo, data []byte, rva uint64) (*provider.Forwarder, bool) {
	off, ok := info.rvaOff(rva)
	if !ok {
		return nil, false
	}
	o, n, ok := cstring(data, off, uint64(len(data)), 0)
	if !ok {
		return nil, false
	}
	return parseForwarder(string(data[o : o+uint64(n)]))
}

func parseForwarder(s string) (*provider.Forwarder, bool) {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 {
		return nil, false
	}
	f := &provider.Forwarder{Library: s[:i], Name: s[i+1:]}
	if !strings.Contains(f.Library, ".") {
		f.Library += ".dll"
	}
	if strings.HasPrefix(f.Name, "#") {
		n, err := strconv.ParseUint(f.Name[1:], 10, 16)
		if err != nil {
			return nil, false
		}
		f.Name, f.Ordinal = "", intp(int(n))
	}
	return f, true
}
