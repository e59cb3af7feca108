package gdb

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/rea-re/rea/engine/provider"
)

// BenchmarkGDBListProcedures compares list_procedures through the provider
// with gdb run directly in batch mode on the same file (issue 4: ≤ 1.2×).
// "adapter" starts a client, pages through every procedure and closes it, as
// one `gdb -batch` run starts, answers and exits; "adapter-query" is the
// query alone on a running client (symbol table not cached). The target is
// the gcc fixture unless REA_BENCH_GDB_TARGET names an x86_64 ELF file.
func BenchmarkGDBListProcedures(b *testing.B) {
	p := enabled(b)
	path := os.Getenv("REA_BENCH_GDB_TARGET")
	if path == "" {
		path = fixture(b)
	}
	tg := targetOf(b, path)
	prof, err := p.Profile(context.Background(), tg)
	if err != nil {
		b.Fatal(err)
	}
	list := func(b *testing.B, c *Client) int {
		n := 0
		for offset := int64(0); ; {
			res, err := c.Do(context.Background(), provider.OpListProcedures, provider.Params{"offset": offset, "limit": int64(500)}, nil)
			if err != nil {
				b.Fatal(err)
			}
			page := res.Normalized.(provider.Page[provider.ProcedureItem])
			n += page.Returned
			if page.NextOffset == nil {
				return n
			}
			offset = int64(*page.NextOffset)
		}
	}
	b.Run("adapter", func(b *testing.B) {
		for b.Loop() {
			cl, err := p.Start(context.Background(), tg, prof, provider.Run{ID: testRunID})
			if err != nil {
				b.Fatal(err)
			}
			list(b, cl.(*Client))
			if cu, _ := cl.Close(context.Background()); !cu.Complete {
				b.Fatal("cleanup incomplete")
			}
		}
	})
	b.Run("adapter-query", func(b *testing.B) {
		cl, err := p.Start(context.Background(), tg, prof, provider.Run{ID: testRunID})
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close(context.Background())
		c := cl.(*Client)
		for b.Loop() {
			c.tab = nil
			list(b, c)
		}
	})
	for name, query := range map[string]string{
		"gdb-batch-info-functions": "info functions",
		"gdb-batch-msymbols":       "maint print msymbols",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(p.path, "-nx", "-batch", "-ex", query, path)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C"}
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("%v", err)
				}
			}
		})
	}
}
