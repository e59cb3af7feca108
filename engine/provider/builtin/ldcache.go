package builtin

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The glibc loader's cache, /etc/ld.so.cache, as ldconfig writes it
// (glibc elf/cache.c, sysdeps/generic/dl-cache.h). list_dependencies reads
// it to say where this host's loader would find a DT_NEEDED library.
//
// Layout of the "new" format (the only one glibc ≥ 2.32 writes, and the one
// its loader reads when both are present):
//
//	header (48 bytes): magic "glibc-ld.so.cache" version "1.1", nlibs u32,
//	                   len_strings u32, flags u8 (endianness), pad [3],
//	                   extension_offset u32, unused [3]u32
//	nlibs entries (24 bytes): flags i32, key u32, value u32,
//	                   osversion u32, hwcap u64
//	string table:     NUL-terminated names; key (the soname) and value (the
//	                   path) are offsets from the start of this header
//	extension:        magic 0xeaa42174, count u32, sections of
//	                   {tag, flags, offset, size u32}; tag 1 lists the
//	                   glibc-hwcaps subdirectory names that entries whose
//	                   hwcap is (1<<62)|index refer to
//
// An old-format cache ("ld.so-1.7.0", 12-byte entries) may precede the new
// one; the new one then starts at the next 8-byte boundary after it.

const (
	ldCacheMagicNew   = "glibc-ld.so.cache1.1"
	ldCacheMagicOld   = "ld.so-1.7.0"
	ldCacheHeaderSize = 48
	ldCacheEntrySize  = 24
	ldCacheOldEntry   = 12
	ldCacheExtMagic   = 0xeaa42174
	// ldCacheHwcapExt marks an entry whose hwcap field's low 32 bits index
	// the glibc-hwcaps names (DL_CACHE_HWCAP_EXTENSION).
	ldCacheHwcapExt = uint64(1) << 62
	// maxLdCacheEntries bounds a damaged header's count (a real cache
	// holds a few thousand).
	maxLdCacheEntries = 1 << 20
)

// ld.so.cache entry flags (glibc elf/ldconfig.h): the low byte is the
// object type, the next the ABI of the library's class and machine.
const (
	ldFlagELFLibc6     = 0x0003
	ldFlagRequiredMask = 0xff00
	ldFlagX8664Lib64   = 0x0300
	ldFlagX8664LibX32  = 0x0800
	ldFlagARMLibHF     = 0x0900
	ldFlagAArch64Lib64 = 0x0a00
	ldFlagARMLibSF     = 0x0b00
)

// ldCacheEntry is one library of the cache.
type ldCacheEntry struct {
	Flags int32
	Name  string // the soname ldconfig found
	Path  string
	Hwcap uint64
	// Subdir is the glibc-hwcaps subdirectory an extension entry belongs
	// to ("" for a baseline entry).
	Subdir string
}

// ldCache is a parsed cache, entries in file order (ldconfig sorts them,
// and the loader takes the first that fits among equal names).
type ldCache struct {
	Entries []ldCacheEntry
}

// LdCacheError is a malformed cache: what is wrong and where.
type LdCacheError struct {
	Offset int64
	Reason string
}

func (e *LdCacheError) Error() string {
	return fmt.Sprintf("ld.so.cache: %s (at byte %d)", e.Reason, e.Offset)
}

func ldCacheErr(off uint64, format string, args ...any) error {
	return &LdCacheError{Offset: int64(min(off, 1<<62)), Reason: fmt.Sprintf(format, args...)}
}

// parseLdCache parses the bytes of an ld.so.cache. Every failure is an
// *LdCacheError; it never panics on any input.
func parseLdCache(b []byte) (*ldCache, error) {
	base := uint64(0)
	if bytes.HasPrefix(b, []byte(ldCacheMagicOld)) {
		if len(b) < 16 {
			return nil, ldCacheErr(uint64(len(b)), "the old-format header is truncated")
		}
		n := uint64(binary.LittleEndian.Uint32(b[12:]))
		if n > maxLdCacheEntries {
			return nil, ldCacheErr(12, "the old-format header declares %d entries", n)
		}
		base = (16 + n*ldCacheOldEntry + 7) &^ 7
		if base >= uint64(len(b)) {
			return nil, ldCacheErr(base, "an old-format cache without the new format (glibc's loader no longer reads it)")
		}
	}
	c := b[base:]
	if !bytes.HasPrefix(c, []byte(ldCacheMagicNew)) {
		return nil, ldCacheErr(base, "not a glibc-ld.so.cache1.1 file")
	}
	if len(c) < ldCacheHeaderSize {
		return nil, ldCacheErr(base+uint64(len(c)), "the header is truncated")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch c[28] & 3 {
	case 1:
		return nil, ldCacheErr(base+28, "the header marks the cache's byte order invalid")
	case 3:
		bo = binary.BigEndian
	}
	nlibs := uint64(bo.Uint32(c[20:]))
	extOff := uint64(bo.Uint32(c[32:]))
	if nlibs > maxLdCacheEntries {
		return nil, ldCacheErr(base+20, "the header declares %d entries", nlibs)
	}
	if end := ldCacheHeaderSize + nlibs*ldCacheEntrySize; end > uint64(len(c)) {
		return nil, ldCacheErr(base+uint64(len(c)), "%d entries run past the end of the file", nlibs)
	}
	str := func(at uint64, off uint32) (string, error) {
		o := uint64(off)
		if o >= uint64(len(c)) {
			return "", ldCacheErr(base+at, "a string offset %d lies outside the file", o)
		}
		i := bytes.IndexByte(c[o:], 0)
		if i < 0 {
			return "", ldCacheErr(base+o, "a string is not terminated")
		}
		return string(c[o : o+uint64(i)]), nil
	}
	subdirs, err := ldCacheHwcaps(c, bo, extOff, base, str)
	if err != nil {
		return nil, err
	}
	out := &ldCache{Entries: make([]ldCacheEntry, 0, nlibs)}
	for i := uint64(0); i < nlibs; i++ {
		at := ldCacheHeaderSize + i*ldCacheEntrySize
		e := c[at:]
		ent := ldCacheEntry{Flags: int32(bo.Uint32(e)), Hwcap: bo.Uint64(e[16:])}
		if ent.Name, err = str(at+4, bo.Uint32(e[4:])); err != nil {
			return nil, err
		}
		if ent.Path, err = str(at+8, bo.Uint32(e[8:])); err != nil {
			return nil, err
		}
		if ent.Hwcap>>32 == ldCacheHwcapExt>>32 {
			k := uint64(uint32(ent.Hwcap))
			if k >= uint64(len(subdirs)) {
				return nil, ldCacheErr(base+at+16, "an entry names glibc-hwcaps subdirectory %d of %d", k, len(subdirs))
			}
			ent.Subdir = subdirs[k]
		}
		out.Entries = append(out.Entries, ent)
	}
	return out, nil
}

// ldCacheHwcaps reads the glibc-hwcaps names of the extension, if any.
func ldCacheHwcaps(c []byte, bo binary.ByteOrder, extOff, base uint64, str func(uint64, uint32) (string, error)) ([]string, error) {
	if extOff == 0 {
		return nil, nil
	}
	if extOff > uint64(len(c)) || uint64(len(c))-extOff < 8 || extOff%4 != 0 {
		return nil, ldCacheErr(base+extOff, "the extension header lies outside the file")
	}
	if bo.Uint32(c[extOff:]) != ldCacheExtMagic {
		return nil, ldCacheErr(base+extOff, "the extension has a bad magic number")
	}
	count := uint64(bo.Uint32(c[extOff+4:]))
	if count > (uint64(len(c))-extOff-8)/16 {
		return nil, ldCacheErr(base+extOff+4, "%d extension sections run past the end of the file", count)
	}
	var subdirs []string
	for i := uint64(0); i < count; i++ {
		s := c[extOff+8+i*16:]
		tag, off, size := bo.Uint32(s), uint64(bo.Uint32(s[8:])), uint64(bo.Uint32(s[12:]))
		if tag != 1 { // 0 is the generator string; later tags are unknown and skipped, as the loader does
			continue
		}
		if off > uint64(len(c)) || size > uint64(len(c))-off || size%4 != 0 {
			return nil, ldCacheErr(base+extOff+8+i*16, "the glibc-hwcaps section lies outside the file")
		}
		for k := uint64(0); k < size; k += 4 {
			name, err := str(off+k, bo.Uint32(c[off+k:]))
			if err != nil {
				return nil, err
			}
			subdirs = append(subdirs, name)
		}
	}
	return subdirs, nil
}

// lookup returns the entry the loader would use for soname under the
// accepted flags: the first baseline entry of that name in cache order
// whose flags are accepted. hwcapsToo reports that a glibc-hwcaps entry of
// the name exists as well (the loader prefers it on a CPU that has the
// subdirectory's features).
func (c *ldCache) lookup(soname string, accept func(flags int32) bool) (e *ldCacheEntry, hwcapsToo bool) {
	for i := range c.Entries {
		x := &c.Entries[i]
		if x.Name != soname || !accept(x.Flags) {
			continue
		}
		if x.Subdir != "" {
			hwcapsToo = true
			continue
		}
		if x.Hwcap != 0 {
			continue // a legacy hwcap entry (pre-2.26 ldconfig); the 2.36 loader checks it against the CPU's
		}
		if e == nil {
			e = x
		}
	}
	return e, hwcapsToo
}
