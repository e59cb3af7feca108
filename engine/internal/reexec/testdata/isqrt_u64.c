#include <stdint.h>

uint64_t isqrt_u64(uint64_t n) {
	uint64_t r = 0, bit = 1ull << 62;
	while (bit > n)
		bit >>= 2;
	while (bit != 0) {
		if (n >= r + bit) {
			n -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}
