#include "check.h"
#include <stdint.h>
uint64_t bit_extract(uint64_t v, unsigned lo, unsigned width);
int main(void) {
	CHECK(bit_extract(0xabcd, 4, 8) == 0xbc);
	CHECK(bit_extract(0xabcd, 0, 4) == 0xd);
	CHECK(bit_extract(0xabcd, 0, 0) == 0);
	CHECK(bit_extract(0xabcd, 64, 4) == 0);
	CHECK(bit_extract(~0ull, 1, 64) == 0x7fffffffffffffffull);
	CHECK(bit_extract(0xf000000000000000ull, 60, 4) == 0xf);
	return 0;
}
