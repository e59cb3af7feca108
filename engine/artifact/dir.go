package artifact

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// maxSpecialNotes bounds how many skipped special files are named.
const maxSpecialNotes = 20

// walkDir lists a directory tree: an lstat walk over directory descriptors,
// symlinks recorded (target verbatim) and never followed, special files
// (FIFOs, sockets, devices) skipped with a limitation. The returned listing
// keeps the root descriptor open until it is closed, because entries are
// opened later for hashing. tick is called once per entry.
func walkDir(ctx context.Context, root *dirRoot, lim Limits, prefixLen int, op string, tick func()) (*listing, error) {
	l := &listing{}
	special := 0
	var visit func(rel string) error
	visit = func(rel string) error {
		if err := ctxErr(ctx, op); err != nil {
			return err
		}
		d := root
		if rel != "" {
			var err error
			if d, err = root.sub(rel); err != nil {
				// The directory was listed a moment ago; now it cannot be
				// opened beneath the root (replaced by a symlink, removed,
				// unreadable). Its content is not seen.
				l.Notes = append(l.Notes, fmt.Sprintf("Directory %q could not be read; its content is not listed.", rel))
				return nil
			}
			defer d.Close()
		}
		dup, err := unix.Dup(d.fd)
		if err != nil {
			return ioErr(op, err)
		}
		f := os.NewFile(uintptr(dup), d.path)
		des, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			l.Notes = append(l.Notes, fmt.Sprintf("Directory %q could not be listed completely.", orDot(rel)))
		}
		var subdirs []string
		dirs := make(map[string]bool)
		for _, de := range des {
			if de.IsDir() {
				dirs[de.Name()] = true
			}
		}
		for _, de := range des {
			if err := ctxErr(ctx, op); err != nil {
				return err
			}
			name := de.Name()
			p := joinPath(rel, name)
			if !checkName(name) {
				return opFailed(op, ReasonUnsafePath, safeShow(p), nil)
			}
			if n := prefixLen + len(p); n > lim.MaxPathBytes {
				return truncatedErr(op, "max_path_bytes", int64(lim.MaxPathBytes), int64(n))
			}
			var st unix.Stat_t
			if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				l.Notes = append(l.Notes, fmt.Sprintf("Entry %q vanished while listing.", p))
				continue
			}
			e := &entry{Path: p, Size: -1, Compressed: -1}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFDIR:
				e.Kind = EntryDirectory
				subdirs = append(subdirs, p)
			case unix.S_IFLNK:
				e.Kind = EntrySymlink
				e.Link = readlinkat(d.fd, name)
				e.Notes = append(e.Notes, symlinkNote(e.Link))
			case unix.S_IFREG:
				e.Kind = EntryFile
				e.Size = st.Size
				e.Executable = st.Mode&0o111 != 0
				e.open = func() (io.ReadCloser, error) { return root.openFile(p) }
				e.section = func() (io.ReaderAt, io.Closer, error) {
					f, err := root.openFile(p)
					if err != nil {
						return nil, nil, err
					}
					return f, f, nil
				}
				if dirs[name+".unpacked"] {
					e.unpackedRoot = func() (*dirRoot, error) { return root.sub(p + ".unpacked") }
				}
			default:
				special++
				if special <= maxSpecialNotes {
					l.Notes = append(l.Notes, fmt.Sprintf("Special file %q skipped.", p))
				}
				continue
			}
			if n := int64(len(l.Entries)) + 1; n > lim.MaxEntries {
				return truncatedErr(op, "max_entries", lim.MaxEntries, -1)
			}
			l.Entries = append(l.Entries, e)
			if tick != nil {
				tick()
			}
		}
		for _, s := range subdirs {
			if err := visit(s); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(""); err != nil {
		return nil, err
	}
	if special > maxSpecialNotes {
		l.Notes = append(l.Notes, fmt.Sprintf("%d more special files skipped.", special-maxSpecialNotes))
	}
	l.special = special
	return l, nil
}

func readlinkat(dirfd int, name string) string {
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return ""
		}
		if n < len(buf) {
			return string(buf[:n])
		}
		if len(buf) >= 1<<16 {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func ioErr(op string, err error) error {
	return typed(op, &fs.PathError{Op: "read", Path: ".", Err: err})
}
