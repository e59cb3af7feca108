#include "check.h"
#include <stdint.h>
uint32_t next_pow2(uint32_t v);
int main(void) {
	CHECK(next_pow2(0) == 1);
	CHECK(next_pow2(1) == 1);
	CHECK(next_pow2(2) == 2);
	CHECK(next_pow2(3) == 4);
	CHECK(next_pow2(1000) == 1024);
	CHECK(next_pow2(0x80000000u) == 0x80000000u);
	CHECK(next_pow2(0x80000001u) == 0);
	return 0;
}
