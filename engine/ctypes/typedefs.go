package ctypes

// typedefs resolves the C library's typedef names per ABI. A name absent
// here is an opaque type, usable only through a pointer (the table's parser
// refuses it anywhere else). Values are glibc's for the Linux ABIs (without
// _FILE_OFFSET_BITS=64 or _TIME_BITS=64, the defaults the prototypes are
// checked under) and the Microsoft C runtime's for Win64.
var typedefs = map[string]func(ABI) scalar{
	// One kind on every ABI.
	"int8_t": same(Int8), "uint8_t": same(UInt8), "int16_t": same(Int16), "uint16_t": same(UInt16),
	"int32_t": same(Int32), "uint32_t": same(UInt32), "int64_t": same(Int64), "uint64_t": same(UInt64),
	"intmax_t": same(Int64), "uintmax_t": same(UInt64),
	"pid_t": same(Int), "uid_t": same(UInt), "gid_t": same(UInt), "id_t": same(UInt),
	"mode_t": linuxWin(UInt, UShort), "socklen_t": same(UInt), "sa_family_t": same(UShort),
	"in_addr_t": same(UInt32), "in_port_t": same(UInt16), "clockid_t": same(Int), "key_t": same(Int),
	"useconds_t": same(UInt), "nfds_t": per(ULong, ULong, ULong, UInt), "sig_atomic_t": same(Int),
	"pthread_key_t": same(UInt), "pthread_once_t": same(Int), "pthread_spinlock_t": same(Int),
	"nl_item": same(Int), "idtype_t": same(UInt),
	// glibc's enumerations in C with _GNU_SOURCE: GCC gives an enumeration
	// whose constants are all non-negative the type unsigned int.
	"__rlimit_resource_t": same(UInt), "__priority_which_t": same(UInt), "__itimer_which_t": same(UInt),
	"enum __ptrace_request": same(UInt), "wctype_t": per(ULong, ULong, ULong, UShort),
	"wctrans_t": per(Pointer, Pointer, Pointer, UShort), "errno_t": same(Int),
	"locale_t": same(Pointer), "iconv_t": same(Pointer), "timer_t": same(Pointer),
	"__sighandler_t": same(Pointer), "sighandler_t": same(Pointer), "__p_sig_fn_t": same(Pointer),
	"va_list":    same(Pointer), // a pointer (i386, Win64), an array that decays (x86-64), a struct passed by reference (arm64)
	"jmp_buf":    same(Pointer), // an array: a parameter of this type is a pointer
	"sigjmp_buf": same(Pointer),
	"dev_t":      per(ULong, ULongLong, ULong, UInt),
	"pthread_t":  per(ULong, ULong, ULong, Pointer),
	"wint_t":     linuxWin(UInt, UShort),
	"wchar_t":    per(Int, Long, UInt, UShort),
	"char16_t":   same(UInt16), "char32_t": same(UInt32), "speed_t": same(UInt),

	// The size of a pointer.
	"size_t": per(ULong, UInt, ULong, ULongLong), "ssize_t": per(Long, Int, Long, LongLong),
	"ptrdiff_t": per(Long, Int, Long, LongLong), "intptr_t": per(Long, Int, Long, LongLong),
	"uintptr_t": per(ULong, UInt, ULong, ULongLong), "rsize_t": per(ULong, UInt, ULong, ULongLong),

	// Files and time: 64-bit on LP64, 32-bit on i386 without _FILE_OFFSET_BITS/_TIME_BITS.
	"off_t":       per(Long, Long, Long, Long),
	"off64_t":     per(Long, LongLong, Long, LongLong),
	"ino_t":       per(ULong, ULong, ULong, UShort),
	"time_t":      per(Long, Long, Long, LongLong),
	"clock_t":     per(Long, Long, Long, Long),
	"suseconds_t": per(Long, Long, Long, Long), "blksize_t": per(Long, Long, Int, Long),
	"rlim_t": per(ULong, ULong, ULong, ULong), "fsblkcnt_t": per(ULong, ULong, ULong, ULong),
	"__time64_t": per(Long, LongLong, Long, LongLong), "__off64_t": per(Long, LongLong, Long, LongLong),

	// Aggregates returned or passed by value.
	"div_t":     aggregate(8, 4, 8, 4, 8, 4, 8, 4),
	"ldiv_t":    aggregate(16, 8, 8, 4, 16, 8, 8, 4),
	"lldiv_t":   aggregate(16, 8, 16, 4, 16, 8, 16, 8),
	"imaxdiv_t": aggregate(16, 8, 16, 4, 16, 8, 16, 8),
}

func same(k Kind) func(ABI) scalar { return per(k, k, k, k) }

func linuxWin(linux, windows Kind) func(ABI) scalar { return per(linux, linux, linux, windows) }

// per resolves a typedef to one kind per ABI, in ABI order.
func per(amd64, i386, arm64, win64 Kind) func(ABI) scalar {
	kinds := [numABIs]Kind{amd64, i386, arm64, win64}
	return func(abi ABI) scalar {
		if abi >= numABIs {
			return scalar{kind: Struct}
		}
		return basicScalar(kinds[abi], abi)
	}
}

// aggregate is a struct typedef known by value: size and alignment per ABI,
// in ABI order.
func aggregate(layout ...int) func(ABI) scalar {
	return func(abi ABI) scalar {
		if abi >= numABIs {
			return scalar{kind: Struct}
		}
		return scalar{Struct, layout[2*abi], layout[2*abi+1]}
	}
}

// byValueStructs are the struct tags the table passes by value, with their
// size and alignment per ABI (in ABI order).
var byValueStructs = map[string][]int{
	"in_addr": {4, 4, 4, 4, 4, 4, 4, 4},
}

// basicScalar is the layout of a basic kind or a pointer.
func basicScalar(k Kind, abi ABI) scalar {
	if k == Pointer {
		n := pointerSize(abi)
		return scalar{Pointer, n, n}
	}
	n := basicSize(k, abi)
	return scalar{k, n, basicAlign(k, abi, n)}
}
