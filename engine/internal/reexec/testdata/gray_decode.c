#include <stdint.h>

uint32_t gray_decode(uint32_t g) {
	uint32_t v = g;
	while (g >>= 1)
		v ^= g;
	return v;
}
