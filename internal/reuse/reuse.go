// Package reuse hands out working memory again and again: a table sized by
// the procedure at hand, which the next procedure's table overwrites.
// Lifting every procedure of a file allocates such tables once per worker
// instead of once per procedure, and the collector has that much less to
// do.
package reuse

// Zeroed returns n zero values in *buf's memory, growing it (by a quarter
// more than asked, so that slightly larger tables do not regrow it) when
// it is short. The result shares *buf's memory with every earlier result:
// the caller is done with those.
func Zeroed[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, n+n/4)
		return *buf
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}
