package builtin

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/rea-re/rea/engine/signature"
	"github.com/rea-re/rea/internal/testkit"
)

// TestPackCallsRoundTrip: the call sites of every procedure of libc.so.6
// unpack to what signature recovered, field for field (the cache keeps
// them packed; procedure_calls answers from the unpacked form).
func TestPackCallsRoundTrip(t *testing.T) {
	// A field added to the call-site types must be packed too.
	for typ, n := range map[reflect.Type]int{
		reflect.TypeOf(signature.Call{}): 3, reflect.TypeOf(signature.Callee{}): 4,
		reflect.TypeOf(signature.Arg{}): 4, reflect.TypeOf(signature.Value{}): 7,
	} {
		if typ.NumField() != n {
			t.Fatalf("%v has %d fields, packCalls packs %d", typ, typ.NumField(), n)
		}
	}
	path := "/lib/x86_64-linux-gnu/libc.so.6"
	if testing.Short() {
		t.Skip("-short: lifts every procedure of libc.so.6")
	}
	c, six, ex := openExtents(t, path)
	ctx := context.Background()
	tab := buildLiftTables(c.ix.img, c.data)
	z, err := c.symbolizer(ctx, "test", six)
	if err != nil {
		t.Fatal(err)
	}
	tgt, why := liftTargetOf(c.ix.img)
	if why != "" {
		t.Fatal(why)
	}
	view := &liftView{img: c.ix.img, data: c.data, tab: tab, z: z}
	var sites, args, packed, kinds int
	seen := map[string]bool{}
	for i, p := range allProcedures(t, c) {
		if i%4 != 0 { // a quarter of them: enough kinds of call sites
			continue
		}
		a, err := strconv.ParseUint(p.Address[2:], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := c.decodeProc(ctx, "test", six, ex, a, false)
		if err != nil {
			t.Fatal(err)
		}
		calls := recoverCalls(tgt, view, c, pc, ex, a)
		b := packCalls(calls)
		got, ok := unpackCalls(b)
		if !ok {
			t.Fatalf("%s: packed call sites do not unpack", p.Address)
		}
		for k := range calls {
			if len(calls[k].Args) == 0 {
				calls[k].Args = nil // packing keeps no empty-but-not-nil slice
			}
			args += len(calls[k].Args)
			for _, x := range calls[k].Args {
				if !seen[x.Value.Kind] {
					seen[x.Value.Kind] = true
					kinds++
				}
			}
		}
		if len(calls) == 0 {
			calls = nil
		}
		if !reflect.DeepEqual(got, calls) {
			t.Fatalf("%s: call sites changed through packing:\n got %+v\nwant %+v", p.Address, got, calls)
		}
		sites += len(calls)
		packed += len(b)
	}
	if sites < 1000 || kinds < 4 {
		t.Fatalf("only %d call sites, %d value kinds: the test sees too little", sites, kinds)
	}
	t.Logf("%d call sites, %d arguments, %d value kinds: %d bytes packed (%.1f a call site)", sites, args, kinds, packed, float64(packed)/float64(sites))
}

// recoverCalls is what signature recovers of the procedure's call sites,
// before packing.
func recoverCalls(tgt liftTarget, view *liftView, c *Client, pc *procCode, ex *extentIndex, entry uint64) []signature.Call {
	_, calls := liftProcedureCalls(tgt, view, c.codeAt, pc, ex, entry, nil, nil)
	return calls
}

// FuzzUnpackCalls: bytes that are not packCalls' never panic unpackCalls,
// and what it accepts packs back to the same bytes.
func FuzzUnpackCalls(f *testing.F) {
	f.Add(packCalls([]signature.Call{{Addr: 0x1234, Callee: signature.Callee{Address: 0x10, HasAddress: true, Name: "open", Kind: "import"},
		Args: []signature.Arg{{Index: 0, Storage: "rdi", Value: signature.Value{Kind: signature.KindString, Text: `"/etc"`, String: "/etc", Address: 0x2000, HasAddr: true}},
			{Index: 1, Storage: "rsi", Value: signature.Value{Kind: "novel", Integer: -5, HasInt: true}}}}}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		calls, ok := unpackCalls(b)
		if !ok || len(b) == 0 {
			return
		}
		if again, ok := unpackCalls(packCalls(calls)); !ok || !reflect.DeepEqual(again, calls) {
			t.Fatalf("accepted %x but does not round-trip", b)
		}
	})
}

// TestLiftReuseSameAnswers: lifting from the decoder's kept x86asm
// decodings with one liftScratch shared by every procedure (what lifted
// does: each procedure's instructions and SSA values are built in the
// memory of the one before) answers exactly what lifting from the bytes
// with fresh memory for each procedure answers, on every procedure of
// libc.so.6 (amd64, and arm64, which keeps no decodings).
func TestLiftReuseSameAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: lifts every procedure of libc.so.6 twice")
	}
	for _, f := range []struct{ arch, path string }{{"amd64", "/lib/x86_64-linux-gnu/libc.so.6"}, {"arm64", "/usr/aarch64-linux-gnu/lib/libc.so.6"}} {
		t.Run(f.arch, func(t *testing.T) { liftReuseSameAnswers(t, f.path, f.arch == "amd64") })
	}
}

func liftReuseSameAnswers(t *testing.T, path string, x86 bool) {
	c, six, ex := openExtents(t, path)
	ctx := context.Background()
	z, err := c.symbolizer(ctx, "test", six)
	if err != nil {
		t.Fatal(err)
	}
	tgt, why := liftTargetOf(c.ix.img)
	if why != "" {
		t.Fatal(why)
	}
	view := &liftView{img: c.ix.img, data: c.data, tab: buildLiftTables(c.ix.img, c.data), z: z}
	shared := &liftScratch{}
	procs, kept, lifted := 0, 0, 0
	for i, p := range allProcedures(t, c) {
		if testkit.Race && i%2 == 1 {
			continue // every other procedure: -race slows lifting several times
		}
		a, err := strconv.ParseUint(p.Address[2:], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := c.decodeProc(ctx, "test", six, ex, a, false)
		if err != nil {
			t.Fatal(err)
		}
		want, wantCalls := liftProcedureCalls(tgt, view, c.codeAt, plain, ex, a, nil, nil)
		withKept, err := c.decodeProcForLift(ctx, "test", six, ex, a, []x86Decoded{})
		if err != nil {
			t.Fatal(err)
		}
		got, gotCalls := liftProcedureCalls(tgt, view, c.codeAt, withKept, ex, a, nil, shared)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotCalls, wantCalls) {
			t.Fatalf("%s: reused decoding and memory change the answer:\n got %+v %+v\nwant %+v %+v", p.Address, got, gotCalls, want, wantCalls)
		}
		procs++
		kept += len(withKept.x86)
		if got.proto != nil {
			lifted++
		}
	}
	if procs < 1000 || x86 && kept < 100000 || lifted < procs*9/10 {
		t.Fatalf("%d procedures, %d lifted, %d kept decodings: the test sees too little", procs, lifted, kept)
	}
	t.Logf("%d procedures (%d lifted), %d instructions lifted from kept decodings", procs, lifted, kept)
}
