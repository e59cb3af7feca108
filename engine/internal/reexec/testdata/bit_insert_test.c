#include "check.h"
#include <stdint.h>
uint32_t bit_insert(uint32_t v, uint32_t field, unsigned lo, unsigned width);
int main(void) {
	CHECK(bit_insert(0, 0xf, 4, 4) == 0xf0);
	CHECK(bit_insert(0xffffffffu, 0, 8, 8) == 0xffff00ffu);
	CHECK(bit_insert(0x1234, 0xff, 0, 0) == 0x1234);
	CHECK(bit_insert(0x1234, 0xabcdef01u, 0, 32) == 0xabcdef01u);
	CHECK(bit_insert(0, 0xff, 28, 8) == 0xf0000000u);
	CHECK(bit_insert(5, 1, 40, 1) == 5);
	return 0;
}
