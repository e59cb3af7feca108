#include <stdint.h>

uint32_t interleave_bits(uint16_t x, uint16_t y) {
	uint32_t r = 0;
	for (int i = 0; i < 16; i++) {
		r |= (uint32_t)((x >> i) & 1) << (2 * i);
		r |= (uint32_t)((y >> i) & 1) << (2 * i + 1);
	}
	return r;
}
