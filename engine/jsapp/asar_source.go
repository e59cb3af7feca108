package jsapp

// A minimal read-only ASAR reader (CONTRACTS.md §10.4), kept inside jsapp so the
// analyzer does not wait on engine/artifact; it should be replaced by that
// package's reader once both exist.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const (
	maxASARHeaderJSON = 64 << 20
	// maxASARNesting bounds the header's directory nesting so decoding stays
	// iterative-depth bounded whatever the JSON holds.
	maxASARNesting = 2048
)

// asarNode is one entry of an ASAR header tree.
type asarNode struct {
	name       string
	dir        bool
	children   []*asarNode
	size       int64
	offset     int64
	hasOffset  bool
	executable bool
	unpacked   bool
	link       *string
	integrity  *asarIntegrity
}

type asarIntegrity struct {
	hash      string
	blockSize int64
	blocks    []string
}

// asarArchive is a parsed header: the tree and where file data starts.
type asarArchive struct {
	root      *asarNode
	dataStart int64
	size      int64
}

// errNotASAR means the bytes do not start with a valid ASAR header: the input
// is something else, not a damaged archive.
var errNotASAR = errors.New("not an ASAR archive")

// asarError is a structural failure of an archive that did frame as ASAR:
// reason is one of the artifact_operation_failed reasons.
type asarError struct {
	reason string
	path   string
	msg    string
}

func (e *asarError) Error() string {
	if e.path != "" {
		return e.reason + ": " + e.path + ": " + e.msg
	}
	return e.reason + ": " + e.msg
}

// looksLikeASAR checks the fixed 16-byte pickle prefix only.
func looksLikeASAR(prefix []byte, size int64) bool {
	if len(prefix) < 16 {
		return false
	}
	if binary.LittleEndian.Uint32(prefix[0:]) != 4 {
		return false
	}
	h := int64(binary.LittleEndian.Uint32(prefix[4:]))
	payload := int64(binary.LittleEndian.Uint32(prefix[8:]))
	j := int64(binary.LittleEndian.Uint32(prefix[12:]))
	return h >= 8 && 8+h <= size && payload == h-4 && 4+j <= payload && j <= maxASARHeaderJSON
}

// readASAR reads and validates an archive's header. It returns errNotASAR
// when the framing or the JSON is not an ASAR header, and *asarError when the
// header is an ASAR header describing an impossible or unsafe tree.
func readASAR(r io.ReaderAt, size int64) (*asarArchive, error) {
	var prefix [16]byte
	if size < 16 {
		return nil, errNotASAR
	}
	if _, err := r.ReadAt(prefix[:], 0); err != nil {
		return nil, fmt.Errorf("read ASAR header: %w", err)
	}
	if !looksLikeASAR(prefix[:], size) {
		return nil, errNotASAR
	}
	h := int64(binary.LittleEndian.Uint32(prefix[4:]))
	j := int64(binary.LittleEndian.Uint32(prefix[12:]))
	js := make([]byte, j)
	if _, err := r.ReadAt(js, 16); err != nil {
		return nil, fmt.Errorf("read ASAR header: %w", err)
	}
	root, err := parseASARHeader(js)
	if err != nil {
		return nil, err
	}
	a := &asarArchive{root: root, dataStart: 8 + h, size: size}
	if err := a.checkBounds(root, ""); err != nil {
		return nil, err
	}
	return a, nil
}

// checkBounds verifies every packed file lies inside the archive.
func (a *asarArchive) checkBounds(n *asarNode, prefix string) error {
	for _, c := range n.children {
		p := joinLogical(prefix, c.name)
		if c.dir {
			if err := a.checkBounds(c, p); err != nil {
				return err
			}
			continue
		}
		if c.link != nil || c.unpacked {
			continue
		}
		if !c.hasOffset {
			return &asarError{"corrupt", p, "packed file has no offset"}
		}
		avail := a.size - a.dataStart
		if c.offset > avail || c.size > avail-c.offset {
			return &asarError{"corrupt", p, "file data lies outside the archive"}
		}
	}
	return nil
}

// parseASARHeader decodes the header JSON with a token decoder so duplicate
// names are seen (a map would silently keep one).
func parseASARHeader(b []byte) (*asarNode, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	root := &asarNode{dir: true}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, errNotASAR
	}
	sawFiles := false
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, errNotASAR
		}
		if k == "files" {
			if sawFiles {
				return nil, &asarError{"collision", "", "header has two files keys"}
			}
			sawFiles = true
			if err := decodeDir(dec, root, "", 0); err != nil {
				return nil, err
			}
			continue
		}
		if err := skipValue(dec); err != nil {
			return nil, errNotASAR
		}
	}
	if _, err := dec.Token(); err != nil || !sawFiles {
		return nil, errNotASAR
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotASAR
	}
	return root, nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("expected %v", d)
	}
	return nil
}

func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func corrupt(p, msg string) error { return &asarError{"corrupt", p, msg} }

// decodeDir reads a {"name": node, ...} object into dir.children.
func decodeDir(dec *json.Decoder, dir *asarNode, prefix string, depth int) error {
	if depth > maxASARNesting {
		return corrupt(prefix, "directory nesting is too deep")
	}
	if err := expectDelim(dec, '{'); err != nil {
		return corrupt(prefix, "files is not an object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return corrupt(prefix, "malformed header JSON")
		}
		name := t.(string)
		p := joinLogical(prefix, name)
		if unsafeName(name) {
			return &asarError{"unsafe_path", p, "unsafe entry name"}
		}
		if seen[name] {
			return &asarError{"collision", p, "two entries with the same name"}
		}
		seen[name] = true
		n := &asarNode{name: name}
		if err := decodeNode(dec, n, p, depth); err != nil {
			return err
		}
		dir.children = append(dir.children, n)
	}
	if _, err := dec.Token(); err != nil {
		return corrupt(prefix, "malformed header JSON")
	}
	return nil
}

func unsafeName(name string) bool {
	return name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00")
}

func decodeNode(dec *json.Decoder, n *asarNode, p string, depth int) error {
	if err := expectDelim(dec, '{'); err != nil {
		return corrupt(p, "entry is not an object")
	}
	var sawSize bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return corrupt(p, "malformed header JSON")
		}
		key := t.(string)
		switch key {
		case "files":
			n.dir = true
			if err := decodeDir(dec, n, p, depth+1); err != nil {
				return err
			}
			continue
		case "integrity":
			in, err := decodeIntegrity(dec, p)
			if err != nil {
				return err
			}
			n.integrity = in
			continue
		}
		v, err := dec.Token()
		if err != nil {
			return corrupt(p, "malformed header JSON")
		}
		switch key {
		case "size":
			num, ok := v.(json.Number)
			if !ok {
				return corrupt(p, "size is not a number")
			}
			s, err := strconv.ParseInt(string(num), 10, 64)
			if err != nil || s < 0 || s > maxJSONInt {
				return corrupt(p, "size is not a non-negative integer")
			}
			n.size, sawSize = s, true
		case "offset":
			str, ok := v.(string)
			if !ok || str == "" || strings.Trim(str, "0123456789") != "" {
				return corrupt(p, "offset is not a decimal string")
			}
			o, err := strconv.ParseInt(str, 10, 64)
			if err != nil {
				return corrupt(p, "offset is out of range")
			}
			n.offset, n.hasOffset = o, true
		case "executable":
			b, _ := v.(bool)
			n.executable = b
		case "unpacked":
			b, _ := v.(bool)
			n.unpacked = b
		case "link":
			s, ok := v.(string)
			if !ok {
				return corrupt(p, "link is not a string")
			}
			n.link = &s
		default:
			if d, ok := v.(json.Delim); ok && (d == '{' || d == '[') {
				if err := skipRest(dec); err != nil {
					return corrupt(p, "malformed header JSON")
				}
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return corrupt(p, "malformed header JSON")
	}
	if !n.dir && n.link == nil && !sawSize {
		return corrupt(p, "file has no size")
	}
	return nil
}

// skipRest consumes the remainder of an already opened object or array.
func skipRest(dec *json.Decoder) error {
	depth := 1
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

func unsupported(p, msg string) error { return &asarError{"unsupported_integrity", p, msg} }

func decodeIntegrity(dec *json.Decoder, p string) (*asarIntegrity, error) {
	var raw struct {
		Algorithm *string          `json:"algorithm"`
		Hash      *string          `json:"hash"`
		BlockSize *json.Number     `json:"blockSize"`
		Blocks    *json.RawMessage `json:"blocks"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, unsupported(p, "integrity is not an object of the expected shape")
	}
	if raw.Algorithm == nil || *raw.Algorithm != "SHA256" {
		return nil, unsupported(p, "integrity algorithm is not SHA256")
	}
	if raw.Hash == nil || !isHex64(*raw.Hash) {
		return nil, unsupported(p, "integrity hash is not 64 hex digits")
	}
	in := &asarIntegrity{hash: strings.ToLower(*raw.Hash)}
	if raw.BlockSize == nil {
		return nil, unsupported(p, "integrity has no blockSize")
	}
	bs, err := strconv.ParseInt(string(*raw.BlockSize), 10, 64)
	if err != nil || bs <= 0 {
		return nil, unsupported(p, "integrity blockSize is not a positive integer")
	}
	in.blockSize = bs
	if raw.Blocks == nil {
		return nil, unsupported(p, "integrity has no blocks")
	}
	if err := json.Unmarshal(*raw.Blocks, &in.blocks); err != nil {
		return nil, unsupported(p, "integrity blocks are not strings")
	}
	for i, b := range in.blocks {
		if !isHex64(b) {
			return nil, unsupported(p, "integrity block is not 64 hex digits")
		}
		in.blocks[i] = strings.ToLower(b)
	}
	return in, nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// integrityMismatch reports a declared-versus-observed disagreement.
type integrityMismatch struct {
	declared, calculated string
}

func (e *integrityMismatch) Error() string {
	return "declared sha256 " + e.declared + " but calculated " + e.calculated
}

// verifier hashes an entry's bytes as they stream past, whole-file and per
// block, so one read serves both checks.
type verifier struct {
	in        *asarIntegrity
	size      int64
	whole     hashState
	block     hashState
	blockFill int64
	nblock    int
	badBlock  bool
}

type hashState = interface {
	io.Writer
	Sum([]byte) []byte
	Reset()
}

func newVerifier(in *asarIntegrity, size int64) *verifier {
	return &verifier{in: in, size: size, whole: sha256.New(), block: sha256.New()}
}

func (v *verifier) Write(p []byte) (int, error) {
	n := len(p)
	v.whole.Write(p)
	if v.in == nil {
		return n, nil
	}
	for len(p) > 0 {
		take := v.in.blockSize - v.blockFill
		if int64(len(p)) < take {
			take = int64(len(p))
		}
		v.block.Write(p[:take])
		v.blockFill += take
		p = p[take:]
		if v.blockFill == v.in.blockSize {
			v.closeBlock()
		}
	}
	return n, nil
}

func (v *verifier) closeBlock() {
	sum := hex.EncodeToString(v.block.Sum(nil))
	if v.nblock >= len(v.in.blocks) || v.in.blocks[v.nblock] != sum {
		v.badBlock = true
	}
	v.nblock++
	v.block.Reset()
	v.blockFill = 0
}

// finish returns the whole-file sha256 and, when integrity was declared, an
// *integrityMismatch if the whole hash or any block disagrees.
func (v *verifier) finish() (string, error) {
	sum := hex.EncodeToString(v.whole.Sum(nil))
	if v.in == nil {
		return sum, nil
	}
	// The last block is short; an empty file still has one (empty) block.
	if v.blockFill > 0 || v.nblock == 0 {
		v.closeBlock()
	}
	if sum != v.in.hash || v.badBlock || v.nblock != len(v.in.blocks) {
		return sum, &integrityMismatch{declared: v.in.hash, calculated: sum}
	}
	return sum, nil
}

func joinLogical(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}
