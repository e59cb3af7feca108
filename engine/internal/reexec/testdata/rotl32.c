#include <stdint.h>

uint32_t rotl32(uint32_t v, unsigned n) {
	n &= 31;
	if (n == 0)
		return v;
	return (v << n) | (v >> (32 - n));
}
