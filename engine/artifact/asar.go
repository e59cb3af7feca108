package artifact

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/fault"
)

// MaxASARHeader bounds the JSON header length J (§10.4): a larger claim is
// corrupt before anything is allocated.
const MaxASARHeader = 64 << 20

// maxSafeInt is 2^53: sizes and offsets beyond what JSON numbers carry
// exactly are corrupt.
const maxSafeInt = 1 << 53

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// asarHeader is the pickle framing of an ASAR archive.
type asarHeader struct {
	DataStart int64 // 8 + H: entry offsets are relative to it
	JSON      []byte
}

// readASARHeader reads and bounds the pickle framing:
// [u32le 4][u32le H] then [u32le payload][u32le J][J bytes JSON][pad].
func readASARHeader(r io.ReaderAt, size int64, op string) (*asarHeader, error) {
	corrupt := func(why string) error {
		return opFailed(op, ReasonCorrupt, "", notASAR{errors.New("asar: " + why)})
	}
	var h [16]byte
	if size < 16 {
		return nil, corrupt("shorter than its header")
	}
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, opFailed(op, ReasonCorrupt, "", err)
	}
	if binary.LittleEndian.Uint32(h[0:]) != 4 {
		return nil, corrupt("size pickle is not 4 bytes")
	}
	hs := int64(binary.LittleEndian.Uint32(h[4:]))
	payload := int64(binary.LittleEndian.Uint32(h[8:]))
	j := int64(binary.LittleEndian.Uint32(h[12:]))
	switch {
	case j > MaxASARHeader:
		return nil, corrupt(fmt.Sprintf("header of %d bytes exceeds the %d byte bound", j, MaxASARHeader))
	case hs < 8 || 8+hs > size:
		return nil, corrupt("header pickle runs past the end of the file")
	case payload+4 > hs || j+4 > payload:
		return nil, corrupt("header pickle lengths disagree")
	}
	buf := make([]byte, j)
	if _, err := r.ReadAt(buf, 16); err != nil {
		return nil, opFailed(op, ReasonCorrupt, "", err)
	}
	return &asarHeader{DataStart: 8 + hs, JSON: buf}, nil
}

// sniffASAR reports whether head (≥16 bytes of a file of the given size)
// starts with a plausible ASAR pickle header, as engine/target detects it.
func sniffASAR(head []byte, size int64) bool {
	if len(head) < 17 || binary.LittleEndian.Uint32(head) != 4 {
		return false
	}
	hs := int64(binary.LittleEndian.Uint32(head[4:]))
	j := int64(binary.LittleEndian.Uint32(head[12:]))
	return hs >= 8 && 8+hs <= size && j >= 2 && 16+j <= 8+hs && head[16] == '{'
}

// walkASAR lists an ASAR archive. r holds the archive bytes; unpacked, when
// not nil, is the .asar.unpacked sibling directory. prefixLen is the byte
// length of the archive's own logical path, so that path bounds apply to full
// logical paths while parsing.
func walkASAR(r io.ReaderAt, size int64, unpacked *dirRoot, lim Limits, prefixLen int, op string) (*listing, error) {
	h, entries, err := parseASAR(r, size, lim, prefixLen, op)
	if err != nil {
		return nil, err
	}
	l := &listing{Entries: entries}
	for _, e := range entries {
		if e.Kind != EntryFile {
			continue
		}
		if !e.Unpacked {
			sr := io.NewSectionReader(r, h.DataStart+e.Loc.Offset, e.Size)
			e.open = func() (io.ReadCloser, error) {
				return io.NopCloser(io.NewSectionReader(sr, 0, sr.Size())), nil
			}
			e.section = func() (io.ReaderAt, io.Closer, error) { return sr, nopCloser{}, nil }
			continue
		}
		if unpacked == nil {
			e.Notes = append(e.Notes, "The entry is stored in the .asar.unpacked sibling, which is not available here.")
			continue
		}
		name := e.Path
		e.open = func() (io.ReadCloser, error) { return unpacked.openFile(name) }
		e.section = func() (io.ReaderAt, io.Closer, error) {
			f, err := unpacked.openFile(name)
			if err != nil {
				return nil, nil, err
			}
			return f, f, nil
		}
	}
	return l, nil
}

// parseASAR reads the framing and parses the header into entries (offsets
// relative to the header's DataStart).
func parseASAR(r io.ReaderAt, size int64, lim Limits, prefixLen int, op string) (*asarHeader, []*entry, error) {
	h, err := readASARHeader(r, size, op)
	if err != nil {
		return nil, nil, err
	}
	p := &asarParser{
		json:      h.JSON,
		dec:       json.NewDecoder(bytes.NewReader(h.JSON)),
		lim:       lim,
		prefixLen: prefixLen,
		dataLen:   size - h.DataStart,
		op:        op,
	}
	p.dec.UseNumber()
	if err := p.root(); err != nil {
		return nil, nil, err
	}
	return h, p.entries, nil
}

type asarParser struct {
	json      []byte // the header JSON the decoder reads, for raw entry names
	dec       *json.Decoder
	lim       Limits
	prefixLen int
	dataLen   int64
	op        string
	entries   []*entry
}

func (p *asarParser) corrupt(path, why string) error {
	return opFailed(p.op, ReasonCorrupt, path, errors.New("asar header: "+why))
}

func (p *asarParser) token(path string) (json.Token, error) {
	t, err := p.dec.Token()
	if err != nil {
		return nil, p.corrupt(path, "malformed JSON")
	}
	return t, nil
}

func (p *asarParser) expect(path string, d json.Delim) error {
	t, err := p.token(path)
	if err != nil {
		return err
	}
	if t != d {
		return p.corrupt(path, "expected "+d.String())
	}
	return nil
}

// root parses the header object. A failure outside its files object means
// the JSON is no ASAR header at all (ErrNotASAR, same failure otherwise); one
// inside it is a damaged archive.
func (p *asarParser) root() error {
	notHeader := func(err error) error {
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Details["reason"] == ReasonCorrupt {
			fe.WithCause(notASAR{fe.Unwrap()})
		}
		return err
	}
	if err := p.expect("", '{'); err != nil {
		return notHeader(err)
	}
	sawFiles := false
	for p.dec.More() {
		k, err := p.key("")
		if err != nil {
			return notHeader(err)
		}
		if k == "files" && !sawFiles {
			sawFiles = true
			if err := p.files("", false); err != nil {
				return err
			}
			continue
		}
		if k == "files" {
			return p.corrupt("", "duplicate files key")
		}
		if err := p.skip(""); err != nil {
			return notHeader(err)
		}
	}
	if err := p.expect("", '}'); err != nil {
		return notHeader(err)
	}
	if !sawFiles {
		return notHeader(p.corrupt("", "no files object"))
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return notHeader(p.corrupt("", "trailing data after the header object"))
	}
	return nil
}

func (p *asarParser) key(path string) (string, error) {
	t, err := p.token(path)
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", p.corrupt(path, "expected a key")
	}
	return k, nil
}

// name reads the key of a files object as the bytes the header holds:
// encoding/json turns every byte that is not UTF-8 into U+FFFD, which would
// make distinct names one (CONTRACTS.md §0), so a key holding U+FFFD is
// decoded again from its literal.
func (p *asarParser) name(dir string) (string, error) {
	start := p.dec.InputOffset()
	k, err := p.key(dir)
	if err != nil || !strings.ContainsRune(k, utf8.RuneError) {
		return k, err
	}
	lit := p.json[start:p.dec.InputOffset()]
	if i := bytes.IndexByte(lit, '"'); i >= 0 {
		if s, ok := rawJSONString(lit[i:]); ok {
			return s, nil
		}
	}
	return "", p.corrupt(dir, "malformed entry name")
}

// files parses a {"name": node, …} object below dir.
func (p *asarParser) files(dir string, unpacked bool) error {
	if err := p.expect(dir, '{'); err != nil {
		return err
	}
	seen := make(map[string]bool)
	for p.dec.More() {
		name, err := p.name(dir)
		if err != nil {
			return err
		}
		path := joinPath(dir, name)
		if !checkName(name) {
			return opFailed(p.op, ReasonUnsafePath, safeShow(path), nil)
		}
		if seen[name] {
			return opFailed(p.op, ReasonCollision, path, nil)
		}
		seen[name] = true
		if n := p.prefixLen + len(path); n > p.lim.MaxPathBytes {
			return truncatedErr(p.op, "max_path_bytes", int64(p.lim.MaxPathBytes), int64(n))
		}
		if n := int64(len(p.entries)) + 1; n > p.lim.MaxEntries {
			return truncatedErr(p.op, "max_entries", p.lim.MaxEntries, -1)
		}
		if err := p.node(path, unpacked); err != nil {
			return err
		}
	}
	return p.expect(dir, '}')
}

// node parses one entry object; keys may come in any order.
func (p *asarParser) node(path string, inheritedUnpacked bool) error {
	if err := p.expect(path, '{'); err != nil {
		return err
	}
	e := &entry{Path: path, Size: -1, Compressed: -1}
	p.entries = append(p.entries, e)
	first := len(p.entries) // children start here
	var (
		isDir, hasSize, hasOffset, hasLink bool
		offset                             int64
		seen                               = map[string]bool{}
	)
	for p.dec.More() {
		k, err := p.key(path)
		if err != nil {
			return err
		}
		if seen[k] {
			return p.corrupt(path, "duplicate key "+strconv.Quote(k))
		}
		seen[k] = true
		switch k {
		case "files":
			isDir = true
			if err := p.files(path, inheritedUnpacked); err != nil {
				return err
			}
		case "size":
			hasSize = true
			if e.Size, err = p.integer(path, false); err != nil {
				return err
			}
		case "offset":
			hasOffset = true
			if offset, err = p.integer(path, true); err != nil {
				return err
			}
		case "executable", "unpacked":
			t, err := p.token(path)
			if err != nil {
				return err
			}
			b, ok := t.(bool)
			if !ok {
				return p.corrupt(path, k+" is not a boolean")
			}
			if k == "executable" {
				e.Executable = b
			} else {
				e.Unpacked = b
			}
		case "link":
			hasLink = true
			t, err := p.token(path)
			if err != nil {
				return err
			}
			s, ok := t.(string)
			if !ok {
				return p.corrupt(path, "link is not a string")
			}
			e.Link = s
		case "integrity":
			if e.Integrity, err = p.integrity(path); err != nil {
				return err
			}
		default:
			if err := p.skip(path); err != nil {
				return err
			}
		}
	}
	if err := p.expect(path, '}'); err != nil {
		return err
	}
	e.Unpacked = e.Unpacked || inheritedUnpacked
	switch {
	case isDir && (hasSize || hasLink):
		return p.corrupt(path, "entry is both a directory and a file or link")
	case isDir:
		e.Kind = EntryDirectory
		if e.Unpacked {
			// "unpacked" on a directory may follow its "files": apply it to
			// every descendant parsed above.
			for _, c := range p.entries[first:] {
				c.Unpacked = true
			}
		}
	case hasLink:
		if hasSize {
			return p.corrupt(path, "entry is both a link and a file")
		}
		e.Kind = EntrySymlink
		e.Notes = append(e.Notes, symlinkNote(e.Link))
	default:
		e.Kind = EntryFile
		if !hasSize {
			return p.corrupt(path, "file entry without a size")
		}
		if !e.Unpacked {
			if !hasOffset {
				return p.corrupt(path, "packed file entry without an offset")
			}
			if offset > p.dataLen || e.Size > p.dataLen-offset {
				return p.corrupt(path, "entry bytes lie outside the file")
			}
			e.Loc = &SourceLocation{Offset: offset, Length: e.Size}
		}
		if e.Integrity != nil {
			if err := checkBlockCount(e.Integrity, e.Size); err != nil {
				return opFailed(p.op, ReasonUnsupportedIntegrity, path, err)
			}
		}
	}
	return nil
}

// integer reads a non-negative integer ≤ 2^53: a JSON number, or (for
// offsets, which the packer writes as strings) a decimal string.
func (p *asarParser) integer(path string, allowString bool) (int64, error) {
	t, err := p.token(path)
	if err != nil {
		return 0, err
	}
	var s string
	switch v := t.(type) {
	case json.Number:
		s = string(v)
	case string:
		if !allowString {
			return 0, p.corrupt(path, "size is not a number")
		}
		s = v
	default:
		return 0, p.corrupt(path, "size or offset is not numeric")
	}
	if s == "" || len(s) > 16 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, p.corrupt(path, "size or offset is not a non-negative integer")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > maxSafeInt {
		return 0, p.corrupt(path, "size or offset is out of range")
	}
	return n, nil
}

func (p *asarParser) integrity(path string) (*Integrity, error) {
	unsupported := func(why string) error {
		return opFailed(p.op, ReasonUnsupportedIntegrity, path, errors.New("asar integrity: "+why))
	}
	if err := p.expect(path, '{'); err != nil {
		return nil, unsupported("not an object")
	}
	in := &Integrity{BlockSize: -1}
	var hasBlocks bool
	for p.dec.More() {
		k, err := p.key(path)
		if err != nil {
			return nil, err
		}
		switch k {
		case "algorithm", "hash":
			t, err := p.token(path)
			if err != nil {
				return nil, err
			}
			s, ok := t.(string)
			if !ok {
				return nil, unsupported(k + " is not a string")
			}
			if k == "algorithm" {
				in.Algorithm = s
			} else {
				in.Hash = s
			}
		case "blockSize":
			t, err := p.token(path)
			if err != nil {
				return nil, err
			}
			n, ok := t.(json.Number)
			v, perr := strconv.ParseInt(string(n), 10, 64)
			if !ok || perr != nil || v <= 0 || v > maxSafeInt {
				return nil, unsupported("blockSize is not a positive integer")
			}
			in.BlockSize = v
		case "blocks":
			hasBlocks = true
			if err := p.expect(path, '['); err != nil {
				return nil, unsupported("blocks is not an array")
			}
			for p.dec.More() {
				t, err := p.token(path)
				if err != nil {
					return nil, err
				}
				s, ok := t.(string)
				if !ok || !hex64.MatchString(s) {
					return nil, unsupported("a block hash is not hex64")
				}
				in.Blocks = append(in.Blocks, s)
			}
			if err := p.expect(path, ']'); err != nil {
				return nil, err
			}
		default:
			if err := p.skip(path); err != nil {
				return nil, err
			}
		}
	}
	if err := p.expect(path, '}'); err != nil {
		return nil, err
	}
	switch {
	case in.Algorithm != "SHA256":
		return nil, unsupported("algorithm is not SHA256")
	case !hex64.MatchString(in.Hash):
		return nil, unsupported("hash is not hex64")
	case in.BlockSize <= 0:
		return nil, unsupported("blockSize is missing")
	case !hasBlocks:
		return nil, unsupported("blocks are missing")
	}
	return in, nil
}

// checkBlockCount requires one block hash per blockSize chunk of the declared
// size (the last one short, at least one). The reference packer also emits a
// trailing hash of the empty block when the size is a multiple of blockSize;
// that form is accepted.
func checkBlockCount(in *Integrity, size int64) error {
	n := blockCount(size, in.BlockSize)
	if int64(len(in.Blocks)) == n || (size%in.BlockSize == 0 && size > 0 && int64(len(in.Blocks)) == n+1) {
		return nil
	}
	return fmt.Errorf("asar integrity: %d block hashes for %d bytes in blocks of %d", len(in.Blocks), size, in.BlockSize)
}

func blockCount(size, bs int64) int64 {
	if size == 0 {
		return 1
	}
	return (size + bs - 1) / bs
}

// skip consumes one JSON value of any shape.
func (p *asarParser) skip(path string) error {
	depth := 0
	for {
		t, err := p.token(path)
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func symlinkNote(target string) string {
	return SymlinkNotePrefix + target
}

// SymlinkNotePrefix starts the limitation that records a symlink's target
// verbatim on its occurrence (the §10.3 occurrence has no link field);
// compare_artifacts compares symlinks by it.
const SymlinkNotePrefix = "Symlink recorded, never followed; target: "

// safeShow renders an unsafe entry name for an error detail: control bytes
// are escaped so the detail stays printable.
func safeShow(p string) string {
	q := strconv.QuoteToASCII(p)
	return q[1 : len(q)-1]
}
