package builtin

import (
	"fmt"
	"strconv"
	"time"
)

// progressEvery is how often a long index build reports progress.
const progressEvery = 100 * time.Millisecond

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// panicError turns a recovered panic into an error (never shown to clients:
// fault.Internal keeps it only as the cause).
func panicError(r any) error { return fmt.Errorf("builtin: recovered panic: %v", r) }
