#include "check.h"
#include <stdint.h>
uint64_t mask_range(int lo, int hi);
int main(void) {
	CHECK(mask_range(0, 0) == 1);
	CHECK(mask_range(0, 63) == ~0ull);
	CHECK(mask_range(4, 7) == 0xf0);
	CHECK(mask_range(8, 4) == 0);
	CHECK(mask_range(-5, 3) == 0xf);
	CHECK(mask_range(60, 100) == 0xf000000000000000ull);
	return 0;
}
