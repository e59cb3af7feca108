package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

// hashChunk bounds how much is hashed between cancellation checks (§6.3: ≤ 1 MiB).
const hashChunk = 1 << 20

// hashBuffers is the process's pool of hashing buffers. Opens of large files
// on several connections at once each needed four fresh 1 MiB buffers, garbage
// the collector freed only later: the peak RSS of 8 HTTP connections opening
// the same files at once (CONTRACTS.md §0.3 "Resources"; BENCHMARKS.md, issue
// 23) carried them. A sync.Pool lends them out again instead; it holds no
// state an answer depends on.
var hashBuffers = bufferPool{p: sync.Pool{New: func() any { b := make([]byte, hashChunk); return &b }}}

type bufferPool struct{ p sync.Pool }

func (bp *bufferPool) get() []byte  { return *bp.p.Get().(*[]byte) }
func (bp *bufferPool) put(b []byte) { bp.p.Put(&b) }

// HashFile streams the sha256 of the file at path, reporting phase "hash" in
// bytes against the known size and checking ctx between chunks. Reading runs in
// its own goroutine so that I/O and hashing overlap on two cores.
func HashFile(ctx context.Context, path string, size int64, rep progress.Reporter) (string, error) {
	rep = progress.OrNop(rep)
	f, err := os.Open(path)
	if err != nil {
		return "", ioFault(path, err)
	}
	defer f.Close()

	type chunk struct {
		buf []byte
		n   int
		err error
	}
	const depth = 4
	free := make(chan []byte, depth)
	for range depth {
		free <- hashBuffers.get()
	}
	defer func() {
		// The reader has stopped once full is drained or readerCtx ends;
		// only buffers back in free are returned, never one it may hold.
		for {
			select {
			case b := <-free:
				hashBuffers.put(b)
			default:
				return
			}
		}
	}()
	full := make(chan chunk, depth)
	readerCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		defer close(full)
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-readerCtx.Done():
				return
			}
			n, err := io.ReadFull(f, buf)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case full <- chunk{buf, n, err}:
			case <-readerCtx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()

	h := sha256.New()
	total := float64(size)
	var done int64
	rep.Report(progress.Update{Phase: "hash", Completed: 0, Total: progress.Total(total), Message: "hashing"})
	for c := range full {
		if err := ctx.Err(); err != nil {
			return "", fault.CancelledError("open_binary").WithCause(err)
		}
		h.Write(c.buf[:c.n])
		done += int64(c.n)
		free <- c.buf
		// The reader keeps every buffer full, so this loop never parks:
		// without a yield it holds one of the process's scheduler slots for
		// the whole open, and calls on the connection's other targets wait
		// for the rest (BENCHMARKS.md, Session 7 / issue 14).
		runtime.Gosched()
		if c.err != nil && c.err != io.EOF {
			return "", ioFault(path, c.err)
		}
		// The last chunk is reported too: the phase's work is every byte
		// hashed, and the terminal update counts it (§6.1).
		if float64(done) <= total {
			rep.Report(progress.Update{Phase: "hash", Completed: float64(done), Total: progress.Total(total), Message: "hashing"})
		}
		if c.err == io.EOF {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return "", fault.CancelledError("open_binary").WithCause(err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashDirectory computes the directory digest of CONTRACTS.md §10.2:
// sha256(JCS(children sorted by name of {name, kind, sha256|null, link|null})),
// recursively; symlinks are recorded, never followed; special files have a
// null digest. Files are hashed sequentially through one reused buffer (a
// tree has many small files, for which HashFile's reader goroutine and four
// 1 MiB buffers per file cost more than the hashing), checking ctx between
// ≤ 1 MiB chunks. Progress is phase "hash" in bytes, total unknown (the
// tree is not walked twice), reported every ≥ 1 MiB and once at the end.
func HashDirectory(ctx context.Context, dir string, rep progress.Reporter) (string, error) {
	m := &dirMeter{rep: progress.OrNop(rep)}
	m.rep.Report(progress.Update{Phase: "hash", Completed: 0, Message: "hashing files"})
	d, err := hashDirectory(ctx, dir, make([]byte, hashChunk), sha256.New(), m)
	if err == nil {
		m.rep.Report(progress.Update{Phase: "hash", Completed: float64(m.done), Message: "hashing files"})
	}
	return d, err
}

// dirMeter counts the bytes a directory hash has read.
type dirMeter struct {
	rep        progress.Reporter
	done, last int64
}

func (m *dirMeter) add(n int) {
	m.done += int64(n)
	if m.done-m.last >= hashChunk {
		m.last = m.done
		m.rep.Report(progress.Update{Phase: "hash", Completed: float64(m.done), Message: "hashing files"})
	}
}

func hashDirectory(ctx context.Context, dir string, buf []byte, h hash.Hash, m *dirMeter) (string, error) {
	type child struct {
		Name   string  `json:"name"`
		Kind   string  `json:"kind"`
		SHA256 *string `json:"sha256"`
		Link   *string `json:"link"`
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", ioFault(dir, err)
	}
	children := make([]child, 0, len(entries)) // ReadDir sorts by name (byte order)
	for _, de := range entries {
		if err := ctx.Err(); err != nil {
			return "", fault.CancelledError("open_binary").WithCause(err)
		}
		p := filepath.Join(dir, de.Name())
		c := child{Name: de.Name()}
		switch t := de.Type(); {
		case t&fs.ModeSymlink != 0:
			c.Kind = "symlink"
			l, err := os.Readlink(p)
			if err != nil {
				return "", ioFault(p, err)
			}
			c.Link = &l
		case t.IsDir():
			c.Kind = "directory"
			d, err := hashDirectory(ctx, p, buf, h, m)
			if err != nil {
				return "", err
			}
			c.SHA256 = &d
		case t.IsRegular():
			c.Kind = "file"
			d, err := hashSmall(ctx, p, buf, h, m)
			if err != nil {
				return "", err
			}
			c.SHA256 = &d
		default:
			c.Kind = "special"
		}
		children = append(children, c)
	}
	return canon.Digest(children)
}

// hashSmall hashes one file with the caller's buffer and hash state.
func hashSmall(ctx context.Context, path string, buf []byte, h hash.Hash, m *dirMeter) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", ioFault(path, err)
	}
	defer f.Close()
	h.Reset()
	for {
		if err := ctx.Err(); err != nil {
			return "", fault.CancelledError("open_binary").WithCause(err)
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		m.add(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", ioFault(path, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
