#include <stdint.h>

uint64_t bit_extract(uint64_t v, unsigned lo, unsigned width) {
	if (width == 0 || lo >= 64)
		return 0;
	v >>= lo;
	if (width >= 64)
		return v;
	return v & ((1ull << width) - 1);
}
