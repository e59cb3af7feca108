package tools_test

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bytesLibc is the Debian x86-64 libc the byte tools are checked on.
const bytesLibc = "/usr/lib/x86_64-linux-gnu/libc.so.6"

// bytesRecord is the part of read_bytes' and search_bytes' Evidence the
// tests check: the bytes the answer is about and the arguments it answered.
type bytesRecord struct {
	Operation string `json:"operation"`
	Subject   *struct {
		Format string            `json:"format"`
		Digest map[string]string `json:"digest"`
	} `json:"subject"`
	Parameters map[string]any `json:"parameters"`
}

// TestBytesToolsOnLibc: read_bytes and search_bytes through a real `rea
// mcp` on libc.so.6, each answer checked against the file's bytes read with
// debug/elf, and each Evidence record against the file's sha256 and the
// call's arguments.
func TestBytesToolsOnLibc(t *testing.T) {
	if testing.Short() {
		t.Skip("reads libc.so.6 (-short)")
	}
	data, err := os.ReadFile(bytesLibc)
	if err != nil {
		if os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" {
			t.Fatal(err)
		}
		t.Skipf("%s is not present (Debian x86-64 libc6): %v", bytesLibc, err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	text, bss := f.Section(".text"), f.Section(".bss")
	if text == nil || bss == nil || bss.Type != elf.SHT_NOBITS {
		t.Fatalf("%s has no .text or no zero-fill .bss", bytesLibc)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])

	s := startStdio(t, filepath.Join(t.TempDir(), "ledger.db"))
	s.ok("open_binary", map[string]any{"path": bytesLibc})
	checkRecord := func(r reply, op string, params map[string]any) {
		t.Helper()
		var rec bytesRecord
		b := decode[struct {
			Result struct {
				Bundle struct {
					Records []bytesRecord `json:"records"`
				} `json:"bundle"`
			} `json:"result"`
		}](t, s.ok("get_evidence_bundle", map[string]any{"evidence_ids": []string{recordOf(t, s, r).EvidenceID}}).Structured)
		if len(b.Result.Bundle.Records) == 1 {
			rec = b.Result.Bundle.Records[0]
		}
		if rec.Operation != op || rec.Subject == nil || rec.Subject.Format != "elf" || rec.Subject.Digest["sha256"] != digest {
			t.Errorf("%s: Evidence %+v, want operation %s on the elf of sha256 %s", op, rec, op, digest)
		}
		if got, want := fmt.Sprint(rec.Parameters), fmt.Sprint(params); got != want {
			t.Errorf("%s: Evidence parameters %s, want %s", op, got, want)
		}
	}

	// read_bytes inside .text equals the file's bytes at the section's offset.
	at := text.Addr + 0x40
	addr := fmt.Sprintf("0x%x", at)
	r := s.ok("read_bytes", map[string]any{"address": addr, "length": 64})
	got := result[struct {
		Address    string
		Hex        string
		Section    *string
		FileOffset *int64 `json:"file_offset"`
	}](t, r)
	off := text.Offset + 0x40
	if want := hex.EncodeToString(data[off : off+64]); got.Hex != want || got.Address != addr ||
		got.Section == nil || *got.Section != ".text" || got.FileOffset == nil || *got.FileOffset != int64(off) {
		t.Errorf("read_bytes %s: %+v, want hex %s in .text at file offset %d", addr, got, want, off)
	}
	checkRecord(r, "read_bytes", map[string]any{"address": addr, "length": 64})

	// .bss reads zeros, has no file offset and says so.
	r = s.ok("read_bytes", map[string]any{"address": fmt.Sprintf("0x%x", bss.Addr), "length": 16})
	z := result[struct {
		Hex        string
		FileOffset *int64 `json:"file_offset"`
	}](t, r)
	if z.Hex != strings.Repeat("00", 16) || z.FileOffset != nil || len(limitationsOf(t, r)) == 0 {
		t.Errorf("read_bytes in .bss: %+v, limitations %q; want 16 zeros, no file offset, a limitation", z, limitationsOf(t, r))
	}

	// Outside every segment, and a length past 4096, are invalid requests.
	var end uint64 // past every PT_LOAD segment (libc maps its header at 0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			end = max(end, p.Vaddr+p.Memsz)
		}
	}
	outside := fmt.Sprintf("0x%x", end+0x10000)
	if e := s.errorOf("read_bytes", map[string]any{"address": outside, "length": 4}); e["code"] != "invalid_request" {
		t.Errorf("read_bytes at %s: %v, want invalid_request", outside, e)
	}
	if e := s.errorOf("read_bytes", map[string]any{"address": addr, "length": 4097}); e["code"] != "invalid_request" {
		t.Errorf("read_bytes of 4097 bytes: %v, want invalid_request", e)
	}

	// search_bytes in .text: the first 12 bytes at addr with 4 wildcards
	// find exactly the offsets a scan of the section's file bytes finds.
	lit := data[off : off+12]
	var words []string
	for i, c := range lit {
		if i%3 == 2 {
			words = append(words, "??")
		} else {
			words = append(words, fmt.Sprintf("%02x", c))
		}
	}
	pattern := strings.Join(words, " ")
	sec := data[text.Offset : text.Offset+text.Size]
	want := map[string]bool{}
	for i := 0; i+len(lit) <= len(sec); i++ {
		match := true
		for j := range lit {
			if j%3 != 2 && sec[i+j] != lit[j] {
				match = false
				break
			}
		}
		if match {
			want[fmt.Sprintf("0x%x", text.Addr+uint64(i))] = true
		}
	}
	found := map[string]bool{}
	for offset := 0; ; {
		args := map[string]any{"pattern": pattern, "section": ".text", "offset": offset, "limit": 500}
		r := s.ok("search_bytes", args)
		if offset == 0 {
			checkRecord(r, "search_bytes", args)
		}
		p := result[namedPage[struct {
			Address   string
			Section   string
			Procedure *struct{ Address, Name string }
		}]](t, r)
		for _, it := range p.Items {
			if it.Section != ".text" || found[it.Address] {
				t.Errorf("search_bytes item %+v: want each .text match once", it)
			}
			found[it.Address] = true
		}
		if p.NextOffset == nil {
			break
		}
		offset = *p.NextOffset
	}
	if !found[addr] || len(found) != len(want) {
		t.Errorf("search_bytes %q found %d addresses, the section's bytes %d (origin %s found: %v)", pattern, len(found), len(want), addr, found[addr])
	}
	t.Logf("search_bytes %q in .text: %d matches", pattern, len(found))
	for a := range want {
		if !found[a] {
			t.Errorf("search_bytes %q misses %s", pattern, a)
		}
	}
	if e := s.errorOf("search_bytes", map[string]any{"pattern": "?? ??"}); e["code"] != "invalid_request" {
		t.Errorf("search_bytes of wildcards only: %v, want invalid_request", e)
	}
}
