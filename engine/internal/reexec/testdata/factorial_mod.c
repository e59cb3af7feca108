#include <stdint.h>

uint32_t factorial_mod(uint32_t n, uint32_t mod) {
	uint64_t r = 1 % mod;
	for (uint32_t i = 2; i <= n; i++)
		r = r * i % mod;
	return (uint32_t)r;
}
