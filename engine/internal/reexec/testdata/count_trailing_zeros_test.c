#include "check.h"
#include <stdint.h>
int count_trailing_zeros(uint64_t v);
int main(void) {
	CHECK(count_trailing_zeros(0) == 64);
	CHECK(count_trailing_zeros(1) == 0);
	CHECK(count_trailing_zeros(8) == 3);
	CHECK(count_trailing_zeros(0x8000000000000000ull) == 63);
	CHECK(count_trailing_zeros(0x00f0000000000000ull) == 52);
	return 0;
}
