package artifact

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Containment on disk is done with directory file descriptors, never with
// path strings: every component below a root is resolved by the kernel with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS (openat2), or, where openat2 is not
// available, one O_NOFOLLOW openat per component. A symlink anywhere below
// the root therefore fails the open instead of being followed, and a rename
// race cannot move a walk outside its root.

const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openBeneath opens rel (relative, "/"-separated, already validated) below
// dirfd without following any symlink.
func openBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	how := unix.OpenHow{Flags: uint64(flags), Resolve: resolveBeneath}
	if flags&unix.O_CREAT != 0 {
		how.Mode = uint64(mode)
	}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		switch err {
		case nil:
			return fd, nil
		case unix.EINTR, unix.EAGAIN: // EAGAIN: a concurrent rename; the kernel asks to retry
			continue
		case unix.ENOSYS, unix.ENAMETOOLONG:
			// ENAMETOOLONG: rel is PATH_MAX or longer, which openat2 does not
			// take in one piece; each component is short enough.
			return openComponents(dirfd, rel, flags, mode)
		}
		return -1, &fs.PathError{Op: "openat2", Path: rel, Err: err}
	}
}

// openComponents is the openat2 fallback: one O_NOFOLLOW openat per
// component.
func openComponents(dirfd int, rel string, flags int, mode uint32) (int, error) {
	parts := strings.Split(rel, "/")
	cur := dirfd
	closeCur := func() {
		if cur != dirfd {
			unix.Close(cur)
		}
	}
	for _, p := range parts[:len(parts)-1] {
		if !checkName(p) {
			closeCur()
			return -1, &fs.PathError{Op: "openat", Path: rel, Err: unix.EXDEV}
		}
		fd, err := unix.Openat(cur, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		closeCur()
		if err != nil {
			return -1, &fs.PathError{Op: "openat", Path: rel, Err: err}
		}
		cur = fd
	}
	last := parts[len(parts)-1]
	if last != "." && !checkName(last) {
		closeCur()
		return -1, &fs.PathError{Op: "openat", Path: rel, Err: unix.EXDEV}
	}
	fd, err := unix.Openat(cur, last, flags, mode)
	closeCur()
	if err != nil {
		return -1, &fs.PathError{Op: "openat", Path: rel, Err: err}
	}
	return fd, nil
}

// dirRoot is an open directory that relative paths are resolved beneath.
type dirRoot struct {
	fd   int
	path string // for messages only; never used to open
}

// openDirRoot opens an absolute directory path. The path itself must not be
// a symlink (it is already resolved by the caller).
func openDirRoot(path string) (*dirRoot, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &dirRoot{fd: fd, path: path}, nil
}

func (r *dirRoot) Close() error {
	if r == nil || r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// sub opens the directory rel below r as a new root.
func (r *dirRoot) sub(rel string) (*dirRoot, error) {
	fd, err := openBeneath(r.fd, rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &dirRoot{fd: fd, path: r.path + "/" + rel}, nil
}

// openFile opens rel for reading only when it is a regular file (O_NONBLOCK
// so that a FIFO swapped in after the listing cannot block the read).
func (r *dirRoot) openFile(rel string) (*os.File, error) {
	fd, err := openBeneath(r.fd, rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errors.New("not a regular file")}
	}
	return os.NewFile(uintptr(fd), r.path+"/"+rel), nil
}

// fsFree is the space available to an unprivileged writer on the
// filesystem of fd.
func fsFree(fd int) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return 0, err
	}
	return int64(min(st.Bavail*uint64(st.Bsize), 1<<62)), nil
}
