package gdb

import (
	"errors"
	"testing"
)

func TestParseRecord(t *testing.T) {
	rec, err := ParseRecord([]byte(`12^done,asm_insns=[src_and_asm_line={line="5",file="f.c",line_asm_insn=[{address="0x1159",inst="push   rbp"}]}],empty={},none=[],vals=["a","b\"c"]`))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Kind != KindResult || !rec.HasToken || rec.Token != 12 || rec.Class != "done" {
		t.Fatalf("%+v", rec)
	}
	insns, _ := rec.Field("asm_insns")
	src := insns.Results[0]
	if src.Name != "src_and_asm_line" {
		t.Fatalf("list of results lost its names: %+v", insns)
	}
	if line, _ := src.Value.String("line"); line != "5" {
		t.Fatalf("line %q", line)
	}
	inner, _ := src.Value.Field("line_asm_insn")
	if inst, _ := inner.Items()[0].String("inst"); inst != "push   rbp" {
		t.Fatalf("inst %q", inst)
	}
	vals, _ := rec.Field("vals")
	if it := vals.Items(); len(it) != 2 || it[1].Str != `b"c` {
		t.Fatalf("vals %+v", vals)
	}
	if e, _ := rec.Field("empty"); e.Kind != ValueTuple || len(e.Results) != 0 {
		t.Fatalf("empty %+v", e)
	}

	for line, want := range map[string]Record{
		`~"Reading symbols\n"`:          {Kind: KindConsole, Text: "Reading symbols\n"},
		`&"Quit\n"`:                     {Kind: KindLog, Text: "Quit\n"},
		`@"\303\251\t\x41\e"`:           {Kind: KindTarget, Text: "\303\251\tA\x1b"},
		`(gdb) `:                        {Kind: KindPrompt},
		"(gdb)\r":                       {Kind: KindPrompt},
		`^exit`:                         {Kind: KindResult, Class: "exit"},
		`*stopped,reason="signal"`:      {Kind: KindExecAsync, Class: "stopped"},
		`=thread-group-added,id="i1"`:   {Kind: KindNotifyAsync, Class: "thread-group-added"},
		`+download,section=".text"`:     {Kind: KindStatusAsync, Class: "download"},
		`7^error,msg="No symbol \"x\""`: {Kind: KindResult, Class: "error", Token: 7, HasToken: true},
	} {
		got, err := ParseRecord([]byte(line))
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if got.Kind != want.Kind || got.Class != want.Class || got.Text != want.Text || got.Token != want.Token || got.HasToken != want.HasToken {
			t.Errorf("%q: got %+v, want %+v", line, got, want)
		}
	}
	msg, _ := func() (Record, error) { return ParseRecord([]byte(`7^error,msg="No symbol \"x\""`)) }()
	if s, _ := msg.Field("msg"); s.Str != `No symbol "x"` {
		t.Errorf("msg %q", s.Str)
	}
}

func TestParseRecordRejects(t *testing.T) {
	for _, line := range []string{
		``, `12`, `^`, `^bogus`, `^done,`, `^done,a`, `^done,a=`, `^done,a="x`, `^done,a="\q"`,
		`^done,a={b="c"`, `^done,a=[`, `^done,a=["x",b="y"`, `~"x"y`, `3~"x"`, `!x`, `^done,a="\x"`,
		`^done,a="\777"`, `99999999999999999999999^done`, `^done a="b"`, `^done,a={"x"}`,
	} {
		if rec, err := ParseRecord([]byte(line)); err == nil {
			t.Errorf("%q accepted as %+v", line, rec)
		} else if !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: %v does not wrap ErrSyntax", line, err)
		}
	}
	deep := []byte("^done,a=")
	for i := 0; i < 10000; i++ {
		deep = append(deep, '[')
	}
	if _, err := ParseRecord(deep); err == nil {
		t.Error("deep nesting accepted")
	}
}

func TestQuoteCRoundTrip(t *testing.T) {
	for _, s := range []string{"", "maint print msymbols", "a\"b\\c", "line\nbreak\x00\x7f\t", "\xff\xfe"} {
		rec, err := ParseRecord([]byte("~" + quoteC(s)))
		if err != nil || rec.Text != s {
			t.Errorf("%q: %q %v", s, rec.Text, err)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		`^done,asm_insns=[{address="0x0000000000001159",func-name="rea_add",offset="0",opcodes="55",inst="push   rbp"}]`,
		`~"[ 1] T 0x1000 _init section .init  crtstuff.c\n"`,
		`3^error,msg="-data-disassemble: No function contains specified address"`,
		`(gdb) `, `=cmd-param-changed,param="disassembly-flavor",value="intel"`, `&"Quit\n"`,
		`^done,symbols={debug=[{filename="f.c",fullname="/tmp/f.c",symbols=[{line="8",name="main"}]}],nondebug=[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := ParseRecord(b)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if rec.Kind < KindResult || rec.Kind > KindPrompt {
			t.Fatalf("kind %d", rec.Kind)
		}
		// A stream's text survives quoting and parsing unchanged.
		if rec.Kind == KindConsole {
			back, err := ParseRecord([]byte("~" + quoteC(rec.Text)))
			if err != nil || back.Text != rec.Text {
				t.Fatalf("round trip of %q: %q %v", rec.Text, back.Text, err)
			}
		}
	})
}
