#include "check.h"
#include <stdint.h>
uint64_t sum_squares_u32(const uint32_t *a, int n);
int main(void) {
	uint32_t a[21];
	for (int i = 0; i < 21; i++)
		a[i] = (uint32_t)i;
	CHECK(sum_squares_u32(a, 21) == 2870);
	CHECK(sum_squares_u32(a, 0) == 0);
	CHECK(sum_squares_u32(a + 3, 1) == 9);
	uint32_t big[3] = {4294967295u, 4294967295u, 1};
	CHECK(sum_squares_u32(big, 3) == 2 * 18446744065119617025ull + 1);
	CHECK(sum_squares_u32(big, 1) == 18446744065119617025ull);
	return 0;
}
