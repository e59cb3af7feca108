#include <stdint.h>

uint64_t bswap64_loop(uint64_t v) {
	uint64_t r = 0;
	for (int i = 0; i < 8; i++) {
		r = (r << 8) | (v & 0xff);
		v >>= 8;
	}
	return r;
}
