#include <stdint.h>

uint32_t next_pow2(uint32_t v) {
	if (v <= 1)
		return 1;
	v--;
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	return v + 1;
}
