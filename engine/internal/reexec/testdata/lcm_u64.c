#include <stdint.h>

uint64_t lcm_u64(uint64_t a, uint64_t b) {
	if (a == 0 || b == 0)
		return 0;
	uint64_t x = a, y = b;
	while (y) {
		uint64_t t = x % y;
		x = y;
		y = t;
	}
	return a / x * b;
}
