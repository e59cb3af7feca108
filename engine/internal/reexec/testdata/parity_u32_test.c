#include "check.h"
#include <stdint.h>
int parity_u32(uint32_t v);
int main(void) {
	CHECK(parity_u32(0) == 0);
	CHECK(parity_u32(1) == 1);
	CHECK(parity_u32(3) == 0);
	CHECK(parity_u32(7) == 1);
	CHECK(parity_u32(0x80000000u) == 1);
	CHECK(parity_u32(0xffffffffu) == 0);
	CHECK(parity_u32(0x10204081u) == 1);
	return 0;
}
