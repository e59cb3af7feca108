package artifact

import (
	"archive/zip"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// maxLinkBytes bounds a zip symlink entry's target.
const maxLinkBytes = 4096

// walkZip lists a zip-family archive (zip, jar, apk, ipa, msix, appx: the
// family shares the container; the format only names it).
func walkZip(r io.ReaderAt, size int64, lim Limits, prefixLen int, op string) (*listing, error) {
	zr, err := zip.NewReader(r, size)
	// archive/zip reports non-local names as ErrInsecurePath but still lists
	// them; REA validates every name itself below.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, opFailed(op, ReasonCorrupt, "", err)
	}
	if n := int64(len(zr.File)); n > lim.MaxEntries {
		return nil, truncatedErr(op, "max_entries", lim.MaxEntries, n)
	}
	l := &listing{}
	seen := make(map[string]bool, len(zr.File))
	for _, f := range zr.File {
		name := f.Name
		isDir := strings.HasSuffix(name, "/")
		if isDir {
			name = name[:len(name)-1]
		}
		if !checkPath(name) {
			return nil, opFailed(op, ReasonUnsafePath, safeShow(f.Name), nil)
		}
		if seen[name] {
			return nil, opFailed(op, ReasonCollision, logicalOf(name), nil)
		}
		seen[name] = true
		if n := prefixLen + len(name); n > lim.MaxPathBytes {
			return nil, truncatedErr(op, "max_path_bytes", int64(lim.MaxPathBytes), int64(n))
		}
		mode := f.Mode()
		e := &entry{Path: name, Size: -1, Compressed: -1}
		l.Entries = append(l.Entries, e)
		switch {
		case isDir || mode.IsDir():
			e.Kind = EntryDirectory
			continue
		case mode&fs.ModeSymlink != 0:
			e.Kind = EntrySymlink
			link, err := readZipLink(f)
			if err != nil {
				return nil, opFailed(op, ReasonCorrupt, name, err)
			}
			e.Link = link
			e.Notes = append(e.Notes, symlinkNote(link))
			continue
		}
		e.Kind = EntryFile
		if f.UncompressedSize64 > maxSafeInt || f.CompressedSize64 > maxSafeInt {
			return nil, opFailed(op, ReasonCorrupt, name, errors.New("zip: size out of range"))
		}
		e.Size = int64(f.UncompressedSize64)
		e.Compressed = int64(f.CompressedSize64)
		e.Executable = mode&0o111 != 0
		off, err := f.DataOffset()
		if err != nil {
			return nil, opFailed(op, ReasonCorrupt, name, err)
		}
		if off < 0 || off > size || e.Compressed > size-off {
			return nil, opFailed(op, ReasonCorrupt, name, errors.New("zip: entry bytes lie outside the file"))
		}
		e.Loc = &SourceLocation{Offset: off, Length: e.Compressed}
		if f.Flags&0x1 != 0 {
			e.Encrypted = true
			e.Notes = append(e.Notes, "The entry is encrypted; its bytes were not read.")
			continue
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			e.Notes = append(e.Notes, "The entry uses a compression method REA does not decode.")
			continue
		}
		zf := f
		e.open = func() (io.ReadCloser, error) { return zf.Open() }
		if f.Method == zip.Store && e.Size == e.Compressed {
			sr := io.NewSectionReader(r, off, e.Size)
			e.section = func() (io.ReaderAt, io.Closer, error) { return sr, nopCloser{}, nil }
		}
	}
	return l, nil
}

func readZipLink(f *zip.File) (string, error) {
	if f.UncompressedSize64 > maxLinkBytes || f.Flags&0x1 != 0 {
		return "", errors.New("zip: symlink target too long or encrypted")
	}
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxLinkBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxLinkBytes {
		return "", errors.New("zip: symlink target too long")
	}
	return string(b), nil
}

// finishListing completes a listing the same way for every container: it
// adds the directories that deeper entry paths imply (a zip written without
// directory entries lists the same tree as one written with them), rejects an
// entry below a symlink (the classic link-then-write escape) as unsafe_path
// and an entry below a file as a collision. It sets every entry's logical
// path; two entries with one logical path are a collision (§10.2), whatever
// their raw names.
func finishListing(l *listing, op string) error {
	byPath := make(map[string]*entry, len(l.Entries))
	for _, e := range l.Entries {
		byPath[e.Path] = e
	}
	n := len(l.Entries)
	for i := 0; i < n; i++ {
		e := l.Entries[i]
		for p := parentPath(e.Path); p != ""; p = parentPath(p) {
			a, ok := byPath[p]
			if !ok {
				a = &entry{Path: p, Kind: EntryDirectory, Size: -1, Compressed: -1, Synthetic: true}
				byPath[p] = a
				l.Entries = append(l.Entries, a)
				continue
			}
			switch a.Kind {
			case EntryDirectory:
				continue
			case EntrySymlink:
				return opFailed(op, ReasonUnsafePath, e.Path, errors.New("entry below a symlink"))
			default:
				return opFailed(op, ReasonCollision, e.Path, errors.New("entry below a file"))
			}
		}
	}
	byLogical := make(map[string]bool, len(l.Entries))
	for _, e := range l.Entries {
		e.Logical = logicalOf(e.Path)
		if byLogical[e.Logical] {
			return opFailed(op, ReasonCollision, e.Logical, errors.New("two entry names share one logical path"))
		}
		byLogical[e.Logical] = true
	}
	return nil
}
