package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"sync"
)

// chunkSize is how much is read between cancellation checks (§6.3: ≤ 1 MiB).
const chunkSize = 256 << 10

// headSize is how much of each file is kept for classification.
const headSize = 512

var bufPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// digest is what hashing one entry observed.
type digest struct {
	SHA256     string
	N          int64
	Head       []byte
	OverLimit  bool     // more than max_entry_bytes: not hashed
	Blocks     []string // per-block hashes, when the entry declares integrity
	Mismatched []int    // disagreeing blocks
	Verified   bool     // matches any declaration
}

// errRatio marks a compression ratio violation found while streaming.
var errRatio = errors.New("compression ratio bound exceeded")

// hashStream hashes r, bounded by the entry limit and, for compressed
// entries, by ratio × compressed size, checking ctx every chunk. When the
// entry declares integrity the whole-file hash and every block hash are
// verified; a file of one block is hashed once (its only block is the file).
func hashStream(ctx context.Context, r io.Reader, e *entry, lim Limits, onBytes func(int64)) (*digest, error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	h := sha256.New()
	d := &digest{}
	var (
		bh        hash.Hash
		bs, inBlk int64
	)
	in := e.Integrity
	if in != nil && e.Size > in.BlockSize {
		bh, bs = sha256.New(), in.BlockSize
	}
	var ratioMax int64 = -1
	if e.Compressed >= 0 {
		c := max(e.Compressed, 1)
		if f := float64(c) * lim.MaxCompressionRatio; f < float64(maxSafeInt) {
			ratioMax = int64(f)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if len(d.Head) < headSize {
				k := min(n, headSize-len(d.Head))
				d.Head = append(d.Head, buf[:k]...)
			}
			d.N += int64(n)
			if ratioMax >= 0 && d.N > ratioMax {
				return nil, errRatio
			}
			if d.N > lim.MaxEntryBytes {
				d.OverLimit = true
				return d, nil
			}
			h.Write(buf[:n])
			if bh != nil {
				for p := buf[:n]; len(p) > 0; {
					k := min(int64(len(p)), bs-inBlk)
					bh.Write(p[:k])
					inBlk += k
					p = p[k:]
					if inBlk == bs {
						d.Blocks = append(d.Blocks, hex.EncodeToString(bh.Sum(nil)))
						bh.Reset()
						inBlk = 0
					}
				}
			}
			if onBytes != nil {
				onBytes(int64(n))
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	d.SHA256 = hex.EncodeToString(h.Sum(nil))
	if in == nil {
		d.Verified = true
		return d, nil
	}
	switch {
	case bh != nil:
		if inBlk > 0 || len(d.Blocks) == 0 {
			d.Blocks = append(d.Blocks, hex.EncodeToString(bh.Sum(nil)))
		}
	case d.N <= in.BlockSize:
		d.Blocks = []string{d.SHA256}
	default:
		// Declared as one block but the bytes are longer (an unpacked file
		// that grew): the whole hash cannot match; the blocks are unknown
		// beyond the first, so every declared index past it disagrees.
		d.Blocks = nil
	}
	if d.Blocks != nil {
		d.Mismatched = compareBlocks(in.Blocks, d.Blocks, d.N, in.BlockSize)
	} else {
		d.Mismatched = make([]int, 0, len(in.Blocks))
		for i := range min(len(in.Blocks), maxMismatchedBlocks) {
			d.Mismatched = append(d.Mismatched, i)
		}
	}
	d.Verified = d.SHA256 == in.Hash && len(d.Mismatched) == 0
	return d, nil
}
