package builtin

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/ctypes"
	"github.com/rea-re/rea/engine/provider"
)

// TestProcedureCallsDebianChecks asks procedure_calls of every procedure
// of Debian's ssh, curl, gdb and libc.so.6 (amd64, and arm64 from
// libc6-arm64-cross; those present) and checks what the file itself can
// confirm: a string argument of getenv, fopen or open is the
// NUL-terminated string at that address in the file; an integer at a
// flags argument of a callee REA's prototype table knows (open's flags,
// mmap's protections, …) sets only bits the table's constants cover. It
// reports the share of indirect calls data flow resolved. -short asks a
// sample: about 400 procedures of each file, evenly spaced.
func TestProcedureCallsDebianChecks(t *testing.T) {
	paths := []string{"/usr/bin/ssh", "/usr/bin/curl", "/usr/bin/gdb", "/lib/x86_64-linux-gnu/libc.so.6", "/usr/aarch64-linux-gnu/lib/libc.so.6"}
	for _, path := range paths {
		name := filepath.Base(path)
		if strings.HasPrefix(path, "/usr/aarch64") {
			name += "-arm64"
		}
		t.Run(name, func(t *testing.T) {
			real, err := filepath.EvalSymlinks(path)
			if err != nil {
				t.Skipf("%s: %v", path, err)
			}
			ef, err := elf.Open(real)
			if err != nil {
				t.Skipf("%s: %v", real, err)
			}
			defer ef.Close()
			abi := ctypes.LinuxAMD64
			switch ef.Machine {
			case elf.EM_X86_64:
			case elf.EM_AARCH64:
				abi = ctypes.LinuxARM64
			default:
				t.Skipf("%s is neither x86-64 nor arm64", real)
			}
			stringAt := func(addr uint64) (string, bool) {
				for _, s := range ef.Sections {
					if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_ALLOC == 0 || addr < s.Addr || addr >= s.Addr+s.Size {
						continue
					}
					d, err := s.Data()
					if err != nil {
						return "", false
					}
					b := d[addr-s.Addr:]
					if i := bytes.IndexByte(b, 0); i >= 0 {
						return string(b[:i]), true
					}
				}
				return "", false
			}
			_, _, c := open(t, real)
			strChecks, flagChecks, indirect, resolved, sites := 0, 0, 0, 0, 0
			var bad []string
			procs := allProcedures(t, c)
			// Every procedure of ssh, curl and both libcs; gdb's 20,000
			// are asked evenly spaced (4,000), which keeps the full run
			// inside CI's time under -race. -short asks ~400 of each.
			stride := max(1, len(procs)/4000)
			if testing.Short() {
				stride = max(1, len(procs)/400)
			}
			asked := 0
			for k, pr := range procs {
				if pr.Procedure.External || k%stride != 0 {
					continue
				}
				asked++
				for off := 0; ; {
					r, err := c.Do(t.Context(), provider.OpProcedureCalls, provider.Params{"procedure": pr.Address, "offset": int64(off), "limit": int64(500)}, nil)
					if err != nil {
						t.Fatalf("procedure_calls %s: %v", pr.Address, err)
					}
					page := r.Normalized.(provider.Page[provider.CallSite])
					for _, cs := range page.Items {
						sites++
						if cs.Callee.Kind == "indirect" || cs.Callee.Kind == "tail" && cs.Callee.Address == nil && cs.Callee.Name == nil {
							indirect++
							if len(cs.ResolvedTargets) > 0 {
								resolved++
							}
						}
						if cs.Callee.Name == nil {
							continue
						}
						name := bareImport(*cs.Callee.Name)
						f, known := ctypes.Lookup(name, abi)
						for _, a := range cs.Arguments {
							v := a.Value
							switch name {
							case "getenv", "secure_getenv", "fopen", "fopen64", "open", "open64":
								if v.Kind == "string" && a.Index == 0 {
									strChecks++
									var at uint64
									fmt.Sscanf(*v.Address, "0x%x", &at)
									if s, ok := stringAt(at); !ok || s != *v.String {
										bad = append(bad, fmt.Sprintf("%s→%s arg 0 %q at %s: file has %q", pr.Address, name, *v.String, *v.Address, s))
									}
								}
							}
							if !known || v.Kind != "constant" || v.Integer == nil || a.Index >= len(f.Params) {
								continue
							}
							set := f.Params[a.Index].Consts
							if set == nil || set.Kind != ctypes.Bits {
								continue
							}
							flagChecks++
							var cover int64
							for _, k := range set.Consts(abi) {
								cover |= k.Value | k.Mask
							}
							w := f.Params[a.Index].Type.Size(abi) * 8
							x := *v.Integer
							if w > 0 && w < 64 {
								x &= 1<<uint(w) - 1
							}
							if x&^cover != 0 {
								bad = append(bad, fmt.Sprintf("%s→%s arg %d = %s: bits %#x outside %s", cs.Address, name, a.Index, v.Text, x&^cover, set.Name))
							}
						}
					}
					if page.NextOffset == nil {
						break
					}
					off = *page.NextOffset
				}
			}
			share := 100 * float64(resolved) / float64(max(indirect, 1))
			t.Logf("%s: %d of %d procedures asked, %d call sites; %d string and %d flag arguments checked, %d contradicted; indirect calls resolved %.1f%% (%d/%d)",
				name, asked, len(procs), sites, strChecks, flagChecks, len(bad), share, resolved, indirect)
			for i, b := range bad {
				if i < 20 || os.Getenv("REA_SIGNATURE_VERBOSE") != "" {
					t.Error("contradiction:", b)
				}
			}
		})
	}
}
