package ctypes_test

import (
	"fmt"

	"github.com/rea-re/rea/engine/ctypes"
)

func ExampleLookup() {
	f, _ := ctypes.Lookup("open64@GLIBC_2.2.5", ctypes.LinuxAMD64)
	fmt.Println(f.Declaration())
	fmt.Println(f.Header, len(f.Params), f.Variadic, f.Params[0].Type.Class(ctypes.LinuxAMD64))
	fmt.Println(f.Params[1].Render(0x241, ctypes.LinuxAMD64))
	fmt.Println(f.Optional[0].Render(0644, ctypes.LinuxAMD64))
	// Output:
	// int (open64)(const char *pathname, int flags, ...);
	// fcntl.h 2 true pointer
	// O_WRONLY|O_CREAT|O_TRUNC
	// S_IRUSR|S_IWUSR|S_IRGRP|S_IROTH
}
