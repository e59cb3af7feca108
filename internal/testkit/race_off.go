//go:build !race

package testkit

// Race says the tests run under the race detector (see race_on.go).
const Race = false
