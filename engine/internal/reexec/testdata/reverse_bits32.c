#include <stdint.h>

uint32_t reverse_bits32(uint32_t v) {
	uint32_t r = 0;
	for (int i = 0; i < 32; i++) {
		r = (r << 1) | (v & 1);
		v >>= 1;
	}
	return r;
}
