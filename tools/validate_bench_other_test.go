//go:build !linux

package tools

// vdaThreadCPU: no per-thread CPU clock here; the benchmarks report wall
// time only.
func vdaThreadCPU() (int64, bool) { return 0, false }
