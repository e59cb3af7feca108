//go:build linux

package tools

import "syscall"

// vdaThreadCPU is the calling thread's CPU time in nanoseconds. The
// validation benchmarks lock their goroutine to one thread and report it as
// cpu-ns/op, because wall time on a machine shared with other jobs measures
// the neighbours as much as the code.
func vdaThreadCPU() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
