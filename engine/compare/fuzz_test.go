package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// FuzzRestore feeds arbitrary manifests and parts to Resume's parser: it
// must refuse them with an error, never panic.
func FuzzRestore(f *testing.F) {
	l := Listing{Procedures: []Procedure{{Address: 0x10, Name: "a"}, {Address: 0x20, Name: "sub_20"}}, Segments: []Range{{0, 0x100}}}
	var toks tokens
	batch := encodeBatch(&toks, []procCode{{complete: true, insns: []insn{newInsn(toks.id("ret"), refNone, flowEnd, 0)}}})
	f.Add([]byte(`{"version":2}`), encodeListing(l), batch)
	f.Fuzz(func(t *testing.T, state, listing, batch []byte) {
		parts := map[string][]byte{}
		for _, b := range [][]byte{listing, batch} {
			s := sha256.Sum256(b)
			parts[hex.EncodeToString(s[:])] = b
		}
		r, err := (&Comparison{Left: nopSide{}, Right: nopSide{}}).newRun()
		if err != nil {
			t.Fatal(err)
		}
		_ = r.restore(context.Background(), state, func(d string) ([]byte, error) { return parts[d], nil })
		s := &side{}
		if l, err := decodeListing(listing); err == nil && validListing(l) == nil {
			s.setListing(l)
			_ = decodeBatch(batch, r, s)
		}
	})
}

// FuzzNormalize: any instruction text normalizes without a panic, as a
// stub's too, and the delta's readers of a token take whatever it spells.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"call 0x1200 <f3>", "lea rdi, ptr [rip+0xf65] ; \"hi\"", "add x0, x0, #0x948 ; \"bye\"",
		"adrp x0, 0x1f000", "jz 0x1012 <_init+0x12>", "jmp qword ptr [rip+0x2fe2] ; 0x4018 <puts>", "push 0xb3",
		"mov rax, qword ptr [rip+0x10] ; 0x4020 <buf.12>", "b.ne 0x12a0", "mov edi, 0x2693", "rip+", " ; ", "0x <"} {
		f.Add(s)
	}
	six := &sideIndex{entries: map[uint64]int32{0x1200: 0}, segments: []Range{{0x1000, 0x3000}}}
	f.Fuzz(func(t *testing.T, text string) {
		for _, stub := range []bool{false, true} {
			n := normalizeText(text, six, stub)
			_ = isNop(n.tok)
			_ = slotName(n.tok)
			_, _ = tokenString(n.tok)
			eachImmediate(n.tok, func(string) {})
		}
		_, _ = gotBase(Instruction{Address: 0x11fc, Text: text}, six)
		_ = syntheticName(text, 0x1200)
	})
}

type nopSide struct{}

func (nopSide) List(context.Context) (Listing, error)                 { return Listing{}, nil }
func (nopSide) Instructions(context.Context, Procedure) (Code, error) { return Code{}, nil }

// FuzzDecodeResult: a stored result that does not parse is refused, and
// one that does pages without a panic.
func FuzzDecodeResult(f *testing.F) {
	f.Add([]byte(`{"version":2,"comparison_id":"cmp_","left":{"sha256":"","analysis_profile_digest":""},"right":{"sha256":"","analysis_profile_digest":""},"summary":{"unchanged":0,"changed":0,"added":0,"removed":0,"unknown":0,"matched_by":{"name":0,"structure":0,"call_graph":0}},"items":[{"status":"added","match":null,"left":null,"right":{"address":"0x10","name":"a"},"similarity":null,"changed_blocks":null}],"limitations":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResult(b)
		if err != nil {
			return
		}
		pat := "a"
		if _, err := r.Page(Query{NamePattern: &pat, Status: []string{StatusAdded}}, "", ""); err != nil {
			t.Fatal(err)
		}
	})
}
