#include <stdint.h>

uint64_t sum_squares_u32(const uint32_t *a, int n) {
	uint64_t s = 0;
	for (int i = 0; i < n; i++)
		s += (uint64_t)a[i] * a[i];
	return s;
}
