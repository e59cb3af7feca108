package ctypes

import (
	"strconv"
	"strings"
	"testing"
)

func mustLookup(t *testing.T, name string, abi ABI) Func {
	t.Helper()
	f, ok := Lookup(name, abi)
	if !ok {
		t.Fatalf("Lookup(%q, %s) found nothing", name, abi)
	}
	return f
}

func TestTableSize(t *testing.T) {
	// The issue asks for at least 500 functions of the C library and POSIX.
	if n := len(Funcs(LinuxAMD64)); n < 500 {
		t.Errorf("%d Linux functions, want ≥ 500", n)
	}
	if n := len(Funcs(WindowsAMD64)); n < 150 {
		t.Errorf("%d Windows functions, want ≥ 150", n)
	}
}

func TestLookupNames(t *testing.T) {
	cases := []struct {
		symbol string
		abi    ABI
		want   string
	}{
		{"fopen", LinuxAMD64, "fopen"},
		{"fopen@GLIBC_2.2.5", LinuxAMD64, "fopen"},
		{"fopen@@GLIBC_2.17", LinuxARM64, "fopen"},
		{"puts@plt", LinuxAMD64, "puts"},
		{"fopen64", Linux386, "fopen64"},
		{"__isoc99_sscanf", LinuxAMD64, "sscanf"},
		{"__isoc99_fscanf@GLIBC_2.7", LinuxAMD64, "fscanf"},
		{"__isoc23_strtol", LinuxAMD64, "strtol"},
		{"_IO_putc", LinuxAMD64, "putc"},
		{"__longjmp_chk", LinuxAMD64, "longjmp"},
		{"__printf_chk", LinuxAMD64, "__printf_chk"},
		{"_open", WindowsAMD64, "_open"},
		{"__imp_printf", WindowsAMD64, "printf"},
		{"__acrt_iob_func", WindowsAMD64, "__acrt_iob_func"},
	}
	for _, c := range cases {
		if f := mustLookup(t, c.symbol, c.abi); f.Name != c.want {
			t.Errorf("Lookup(%q, %s).Name = %q, want %q", c.symbol, c.abi, f.Name, c.want)
		}
	}
	for _, miss := range []struct {
		symbol string
		abi    ABI
	}{{"_open", LinuxAMD64}, {"pipe2", WindowsAMD64}, {"__isoc99_", LinuxAMD64}, {"@GLIBC_2.2.5", LinuxAMD64}, {"fopen", numABIs}, {"sub_401000", LinuxAMD64}} {
		if f, ok := Lookup(miss.symbol, miss.abi); ok {
			t.Errorf("Lookup(%q, %s) = %s, want nothing", miss.symbol, miss.abi, f.Name)
		}
	}
}

func TestPrototypeShapes(t *testing.T) {
	printf := mustLookup(t, "__printf_chk", LinuxAMD64)
	if !printf.Variadic || printf.Format != FormatPrintf || printf.FormatParam != 1 || len(printf.Params) != 2 {
		t.Errorf("__printf_chk: %+v", printf)
	}
	sscanf := mustLookup(t, "__isoc99_sscanf", LinuxAMD64)
	if sscanf.Format != FormatScanf || sscanf.FormatParam != 1 {
		t.Errorf("sscanf format: %v at %d", sscanf.Format, sscanf.FormatParam)
	}
	for _, name := range []string{"exit", "abort", "__stack_chk_fail", "longjmp", "siglongjmp", "pthread_exit", "err", "errx", "__assert_fail", "__cxa_throw", "_exit", "__longjmp_chk"} {
		if !mustLookup(t, name, LinuxAMD64).NoReturn {
			t.Errorf("%s is not noreturn", name)
		}
	}
	for _, name := range []string{"printf", "malloc", "open", "fork"} {
		if mustLookup(t, name, LinuxAMD64).NoReturn {
			t.Errorf("%s is noreturn", name)
		}
	}
	if h := mustLookup(t, "fopen", LinuxAMD64).Header; h != "stdio.h" {
		t.Errorf("fopen header %q", h)
	}
	if h := mustLookup(t, "__libc_start_main", LinuxAMD64).Header; h != "" {
		t.Errorf("__libc_start_main header %q, want none", h)
	}
	if h := mustLookup(t, "__printf_chk", LinuxAMD64).Header; h != "" {
		t.Errorf("__printf_chk header %q: stdio.h declares it only under _FORTIFY_SOURCE", h)
	}

	// Classes and sizes per ABI: lseek's offset is 8 bytes on LP64, 4 on
	// i386 (lseek64's is 8 there); long is 4 bytes on Win64.
	lseek := mustLookup(t, "lseek", Linux386)
	lseek64 := mustLookup(t, "lseek64", Linux386)
	if lseek.Params[1].Type.Size(Linux386) != 4 || lseek64.Params[1].Type.Size(Linux386) != 8 || lseek.Params[1].Type.Size(LinuxAMD64) != 8 {
		t.Errorf("off_t/off64_t sizes: %d %d %d", lseek.Params[1].Type.Size(Linux386), lseek64.Params[1].Type.Size(Linux386), lseek.Params[1].Type.Size(LinuxAMD64))
	}
	if n := mustLookup(t, "_lseek", WindowsAMD64).Params[1].Type.Size(WindowsAMD64); n != 4 {
		t.Errorf("Win64 long is %d bytes", n)
	}
	pow := mustLookup(t, "pow", LinuxARM64)
	if pow.Return.Class(LinuxARM64) != ClassFloating || pow.Params[0].Type.Class(LinuxARM64) != ClassFloating {
		t.Error("pow is not floating")
	}
	fopen := mustLookup(t, "fopen", LinuxAMD64)
	if fopen.Return.Class(LinuxAMD64) != ClassPointer || fopen.Params[0].Type.Class(LinuxAMD64) != ClassPointer {
		t.Error("fopen is not pointers")
	}
	if c := mustLookup(t, "div", LinuxAMD64).Return.Class(LinuxAMD64); c != ClassAggregate {
		t.Errorf("div_t class %s", c)
	}
	if (Type{Kind: Char}).Signed(LinuxARM64) || !(Type{Kind: Char}).Signed(LinuxAMD64) {
		t.Error("plain char signedness")
	}

	// open's mode arrives through its ellipsis, with open's flags asking.
	open := mustLookup(t, "open", LinuxARM64)
	if len(open.Params) != 2 || len(open.Optional) != 1 || open.Optional[0].Render(0644, LinuxARM64) != "S_IRUSR|S_IWUSR|S_IRGRP|S_IROTH" {
		t.Errorf("open: params %d, optional %+v", len(open.Params), open.Optional)
	}
	if d := open.Declaration(); d != "int (open)(const char *pathname, int flags, ...);" {
		t.Errorf("open declaration %q", d)
	}

	// A Func is the caller's to modify.
	f := mustLookup(t, "fopen", LinuxAMD64)
	f.Params[0].Name = "changed"
	if mustLookup(t, "fopen", LinuxAMD64).Params[0].Name == "changed" {
		t.Error("Lookup shares Params with the table")
	}
}

func TestDeclaration(t *testing.T) {
	cases := map[string]string{
		"fopen":             "FILE *(fopen)(const char *pathname, const char *mode);",
		"qsort":             "void (qsort)(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *));",
		"exit":              "_Noreturn void (exit)(int status);",
		"getchar":           "int (getchar)(void);",
		"pthread_create":    "int (pthread_create)(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *), void *arg);",
		"execv":             "int (execv)(const char *pathname, char * const *argv);",
		"printf":            "int (printf)(const char *format, ...);",
		"ptrace":            "long (ptrace)(enum __ptrace_request request, ...);",
		"__libc_start_main": "int (__libc_start_main)(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void), void (*fini)(void), void (*rtld_fini)(void), void *stack_end);",
	}
	for name, want := range cases {
		f := mustLookup(t, name, LinuxAMD64)
		if got := f.Declaration(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	if got := mustLookup(t, "fopen", LinuxAMD64).Type().String(); got != "FILE *(const char *, const char *)" {
		t.Errorf("fopen type %q", got)
	}
}

func TestRender(t *testing.T) {
	open := mustLookup(t, "open", LinuxAMD64)
	flags := open.Params[1]
	cases := []struct {
		p    Param
		raw  uint64
		abi  ABI
		want string
	}{
		{flags, 0, LinuxAMD64, "O_RDONLY"},
		{flags, 01 | 0100 | 01000, LinuxAMD64, "O_WRONLY|O_CREAT|O_TRUNC"},
		{flags, 02 | 02000000, LinuxAMD64, "O_RDWR|O_CLOEXEC"},
		{flags, 0200000, LinuxAMD64, "O_RDONLY|O_DIRECTORY"},
		{flags, 0200000, LinuxARM64, "O_RDONLY|O_DIRECT"}, // the same bits mean another flag on arm64
		{flags, 040000, LinuxARM64, "O_RDONLY|O_DIRECTORY"},
		{flags, 0100000, Linux386, "O_RDONLY|O_LARGEFILE"},
		{flags, 0100000, LinuxAMD64, "O_RDONLY|0x8000"}, // O_LARGEFILE is 0 there: never a wrong name
		{flags, 3, LinuxAMD64, "0x3"},                   // O_ACCMODE's fourth value has no name
		{flags, 04010000, LinuxAMD64, "O_RDONLY|O_SYNC"},
		{flags, 010000, LinuxAMD64, "O_RDONLY|O_DSYNC"},
		{flags, 0xffffffff00000001, LinuxAMD64, "O_WRONLY"}, // an int: the upper half is not the argument's
		{mustLookup(t, "lseek", LinuxAMD64).Params[2], 2, LinuxAMD64, "SEEK_END"},
		{mustLookup(t, "lseek", LinuxAMD64).Params[2], 7, LinuxAMD64, "7"},
		{mustLookup(t, "openat", LinuxAMD64).Params[0], 0xffffff9c, LinuxAMD64, "AT_FDCWD"},
		{mustLookup(t, "openat", LinuxAMD64).Params[0], 3, LinuxAMD64, "3"},
		{mustLookup(t, "dlsym", LinuxAMD64).Params[0], 0xffffffffffffffff, LinuxAMD64, "RTLD_NEXT"},
		{mustLookup(t, "dlsym", Linux386).Params[0], 0xffffffff, Linux386, "RTLD_NEXT"},
		{mustLookup(t, "dlopen", LinuxAMD64).Params[1], 2 | 0x100, LinuxAMD64, "RTLD_NOW|RTLD_GLOBAL"},
		{mustLookup(t, "mmap", LinuxAMD64).Params[2], 3, LinuxAMD64, "PROT_READ|PROT_WRITE"},
		{mustLookup(t, "mmap", LinuxAMD64).Params[2], 0, LinuxAMD64, "PROT_NONE"},
		{mustLookup(t, "mmap", LinuxAMD64).Params[3], 0x22, LinuxAMD64, "MAP_PRIVATE|MAP_ANONYMOUS"},
		{mustLookup(t, "mmap", LinuxAMD64).Params[3], 0x42, LinuxAMD64, "MAP_PRIVATE|MAP_32BIT"},
		{mustLookup(t, "mmap", LinuxARM64).Params[3], 0x42, LinuxARM64, "MAP_PRIVATE|0x40"},
		{mustLookup(t, "socket", LinuxAMD64).Params[0], 10, LinuxAMD64, "AF_INET6"},
		{mustLookup(t, "socket", LinuxAMD64).Params[1], 1 | 02000000, LinuxAMD64, "SOCK_STREAM|SOCK_CLOEXEC"},
		{mustLookup(t, "kill", LinuxAMD64).Params[1], 9, LinuxAMD64, "SIGKILL"},
		{mustLookup(t, "raise", WindowsAMD64).Params[0], 22, WindowsAMD64, "SIGABRT"},
		{mustLookup(t, "raise", WindowsAMD64).Params[0], 6, WindowsAMD64, "6"},
		{mustLookup(t, "mkdir", LinuxAMD64).Params[1], 0755, LinuxAMD64, "S_IRWXU|S_IRGRP|S_IXGRP|S_IROTH|S_IXOTH"},
		{mustLookup(t, "access", LinuxAMD64).Params[1], 0, LinuxAMD64, "F_OK"},
		{mustLookup(t, "access", LinuxAMD64).Params[1], 6, LinuxAMD64, "R_OK|W_OK"},
		{mustLookup(t, "waitpid", LinuxAMD64).Params[2], 1, LinuxAMD64, "WNOHANG"},
		{mustLookup(t, "clock_gettime", LinuxAMD64).Params[0], 1, LinuxAMD64, "CLOCK_MONOTONIC"},
		{mustLookup(t, "fcntl", LinuxAMD64).Params[1], 1030, LinuxAMD64, "F_DUPFD_CLOEXEC"},
		{mustLookup(t, "_open", WindowsAMD64).Params[1], 0x8000 | 0x100 | 1, WindowsAMD64, "_O_WRONLY|_O_CREAT|_O_BINARY"},
		{mustLookup(t, "syslog", LinuxAMD64).Params[0], 24 | 3, LinuxAMD64, "LOG_ERR|LOG_DAEMON"},
		{mustLookup(t, "malloc", LinuxAMD64).Params[0], 16, LinuxAMD64, "16"},
	}
	for _, c := range cases {
		if got := c.p.Render(c.raw, c.abi); got != c.want {
			t.Errorf("%s=%#x on %s: got %q, want %q", c.p.Name, c.raw, c.abi, got, c.want)
		}
	}
}

// TestRenderNeverWrong checks Render's promise on every set and ABI: the
// expression it writes, evaluated with the table's values, equals the value.
func TestRenderNeverWrong(t *testing.T) {
	tab := mustTable(t)
	values := []int64{0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 0x20, 0x40, 0x42, 0x100, 0x1ff, 0x8000, 0xffff, 0x80000000, -1, -100, 0755, 01101, 0x7fffffff}
	for _, s := range tab.sets {
		for abi := range numABIs {
			byName := map[string]int64{}
			for _, c := range s.Consts(abi) {
				byName[c.Name] = c.Value
			}
			for _, v := range values {
				expr := s.Render(v, abi)
				if got, ok := evalRendered(expr, byName, s.Kind); !ok || got != v {
					t.Errorf("set %s on %s: %d rendered %q, which is %d (ok=%v)", s.Name, abi, v, expr, got, ok)
				}
			}
		}
	}
}

// evalRendered evaluates an expression Render wrote.
func evalRendered(expr string, names map[string]int64, kind SetKind) (int64, bool) {
	var v int64
	for _, part := range strings.Split(expr, "|") {
		if n, ok := names[part]; ok {
			v |= n
			continue
		}
		var x int64
		var err error
		if hex, ok := strings.CutPrefix(part, "0x"); ok {
			var u uint64
			u, err = strconv.ParseUint(hex, 16, 64)
			x = int64(u)
		} else {
			x, err = strconv.ParseInt(part, 10, 64)
		}
		if err != nil {
			return 0, false
		}
		if kind == Enum {
			return x, true
		}
		v |= x
	}
	return v, true
}

// BenchmarkLookup measures a lookup by a versioned symbol name (a map
// access, a cut at '@' and a copy of the parameters).
func BenchmarkLookup(b *testing.B) {
	theTable()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("__isoc99_sscanf@GLIBC_2.7", LinuxAMD64); !ok {
			b.Fatal("not found")
		}
	}
}

// BenchmarkParseTable measures the one-time cost of the first Lookup.
func BenchmarkParseTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseTable(tableText); err != nil {
			b.Fatal(err)
		}
	}
}
