package gdb

import (
	"strings"
	"testing"
)

func TestParseMsymbols(t *testing.T) {
	console := []string{"\nObject file ", "/tmp/a b/f:\n\n",
		"[ 3] T 0x1030 puts@plt section .plt  \n[ 2] S 0x1030 puts section .plt  \n",
		"[ 9] T 0x1200 type:.eq.[2]interface {} section .text  go.go\n[10] A 0x0 abs_sym\n",
		"[11] t 0x1188 rea_static_", "helper section .text  f.c\n\n"}
	syms, err := parseMsymbols(console)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, s := range syms {
		got = append(got, string(s.typ)+" "+s.name+" "+s.section)
	}
	want := "A abs_sym |S puts .plt|T puts@plt .plt|t rea_static_helper .text|T type:.eq.[2]interface {} .text"
	if strings.Join(got, "|") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	for _, bad := range []string{"garbage\n", "[ 1] T zz main\n", "[ 1]T 0x1 main\n", "[ 1] T 0x1 \n"} {
		if _, err := parseMsymbols([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSections(t *testing.T) {
	ft, secs, err := parseSections([]string{"Exec file: `/tmp/x y', file type elf64-x86-64.\n",
		" [14]     0x00001070->0x00001204 at 0x00001070: .text ALLOC LOAD READONLY CODE HAS_CONTENTS\n",
		" [25]     0x0000402c->0x00004030 at 0x0000302c: .bss ALLOC\n"})
	if err != nil || ft != "elf64-x86-64" || len(secs) != 2 || secs[0].name != ".text" || !secs[0].flags["CODE"] || secs[1].end != 0x4030 {
		t.Fatalf("%q %+v %v", ft, secs, err)
	}
	for _, bad := range []string{" [1] 0x10->0x5 at 0x0: .x ALLOC\n", " [1] 0x10 at 0x0: .x\n", "what\n"} {
		if _, _, err := parseSections([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestBREQuote(t *testing.T) {
	if q := breQuote("a.b$c_d"); q != `a\.b\$c_d` {
		t.Fatal(q)
	}
}

// FuzzConsoleTables: the console parsers never panic, and what they accept
// is well-formed.
func FuzzConsoleTables(f *testing.F) {
	f.Add("[ 1] T 0x1000 _init section .init  crtstuff.c\n[ 2] S 0x1030 puts section .plt  \n")
	f.Add("Exec file: `/tmp/f', file type elf64-x86-64.\n [0]      0x00000318->0x00000334 at 0x00000318: .interp ALLOC LOAD READONLY DATA HAS_CONTENTS\n")
	f.Fuzz(func(t *testing.T, s string) {
		if syms, err := parseMsymbols([]string{s}); err == nil {
			for i, m := range syms {
				if m.name == "" || (i > 0 && syms[i-1].addr > m.addr) {
					t.Fatalf("bad symbol table %+v", syms)
				}
			}
		}
		if _, secs, err := parseSections([]string{s}); err == nil {
			for _, sec := range secs {
				if sec.end < sec.start {
					t.Fatalf("bad section %+v", sec)
				}
			}
		}
	})
}
