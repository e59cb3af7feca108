#include <stdint.h>

uint32_t ipow_mod(uint32_t base, uint32_t exp, uint32_t mod) {
	if (mod == 1)
		return 0;
	uint64_t r = 1, b = base % mod;
	while (exp > 0) {
		if (exp & 1)
			r = r * b % mod;
		b = b * b % mod;
		exp >>= 1;
	}
	return (uint32_t)r;
}
