#include "check.h"
#include <stdint.h>
uint32_t interleave_bits(uint16_t x, uint16_t y);
int main(void) {
	CHECK(interleave_bits(0, 0) == 0);
	CHECK(interleave_bits(1, 0) == 1);
	CHECK(interleave_bits(0, 1) == 2);
	CHECK(interleave_bits(0xffff, 0) == 0x55555555u);
	CHECK(interleave_bits(0, 0xffff) == 0xaaaaaaaau);
	CHECK(interleave_bits(3, 5) == 0x27);
	return 0;
}
