package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
)

// hashChunk bounds how much is hashed between cancellation checks (§6.3: ≤ 1 MiB).
const hashChunk = 1 << 20

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
		free <- make([]byte, hashChunk)
	}
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
		if c.err == io.EOF {
			break
		}
		if c.err != nil {
			return "", ioFault(path, c.err)
		}
		if float64(done) <= total {
			rep.Report(progress.Update{Phase: "hash", Completed: float64(done), Total: progress.Total(total), Message: "hashing"})
		}
	}
	if err := ctx.Err(); err != nil {
		return "", fault.CancelledError("open_binary").WithCause(err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
