#include <stdint.h>

uint32_t bit_insert(uint32_t v, uint32_t field, unsigned lo, unsigned width) {
	if (width == 0 || lo >= 32)
		return v;
	if (width > 32 - lo)
		width = 32 - lo;
	uint32_t mask = width == 32 ? 0xffffffffu : ((1u << width) - 1) << lo;
	return (v & ~mask) | ((field << lo) & mask);
}
