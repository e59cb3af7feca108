#include "check.h"
#include <stdint.h>
uint32_t gray_decode(uint32_t g);
int main(void) {
	CHECK(gray_decode(0) == 0);
	CHECK(gray_decode(1) == 1);
	CHECK(gray_decode(3) == 2);
	CHECK(gray_decode(2) == 3);
	CHECK(gray_decode(4) == 7);
	CHECK(gray_decode(0x80000000u) == 0xffffffffu);
	return 0;
}
