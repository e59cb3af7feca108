#include "check.h"
#include <stdint.h>
int count_leading_zeros(uint32_t v);
int main(void) {
	CHECK(count_leading_zeros(0) == 32);
	CHECK(count_leading_zeros(1) == 31);
	CHECK(count_leading_zeros(0x80000000u) == 0);
	CHECK(count_leading_zeros(0x00010000u) == 15);
	CHECK(count_leading_zeros(0x0000ffffu) == 16);
	CHECK(count_leading_zeros(0x7fffffffu) == 1);
	return 0;
}
