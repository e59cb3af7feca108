package builtin

import (
	"encoding/binary"

	"github.com/rea-re/rea/engine/provider"
)

// maxRichEntries bounds the entries read (the header sits in the DOS stub).
const maxRichEntries = 256

// parseRich reads the Rich header in the bytes before the PE header (stub
// = file[0:e_lfanew]): "Rich" and the XOR key end it; walking back, the
// XOR-ed "DanS" starts it, followed by three padding words and then
// (comp_id, count) pairs, comp_id = product<<16 | build.
func parseRich(stub []byte) ([]provider.RichEntry, bool) {
	le := binary.LittleEndian
	end := -1
	for i := 0x40; i+8 <= len(stub); i += 4 {
		if string(stub[i:i+4]) == "Rich" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, false
	}
	key := le.Uint32(stub[end+4:])
	start := -1
	for i := end - 4; i >= 0x40 && end-i <= 8*(maxRichEntries+2); i -= 4 {
		if le.Uint32(stub[i:])^key == 0x536e6144 { // "DanS"
			start = i
			break
		}
	}
	if start < 0 || start+16 > end {
		return nil, false
	}
	out := []provider.RichEntry{}
	for i := start + 16; i+8 <= end; i += 8 {
		id, n := le.Uint32(stub[i:])^key, le.Uint32(stub[i+4:])^key
		out = append(out, provider.RichEntry{Product: uint16(id >> 16), Build: uint16(id), Count: n})
	}
	return out, true
}

// richHeader adds toolchain.rich_header to a PE's triage.
func (b *triageBuilder) richHeader() {
	if len(b.data) < 0x40 {
		return
	}
	lfanew := uint64(binary.LittleEndian.Uint32(b.data[0x3c:]))
	if lfanew > uint64(len(b.data)) {
		return
	}
	if es, ok := parseRich(b.data[:lfanew]); ok {
		b.t.Toolchain["rich_header"] = fact(es, "header:DOS_stub.Rich")
	}
}
