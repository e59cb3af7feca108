//go:build race

package testkit

// Race says the tests run under the race detector, which slows the Go
// side of a sweep several times: sweeps whose concurrency a smaller
// matrix covers as well run that smaller matrix then (each says which).
const Race = true
