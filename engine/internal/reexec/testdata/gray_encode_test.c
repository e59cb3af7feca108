#include "check.h"
#include <stdint.h>
uint32_t gray_encode(uint32_t v);
int main(void) {
	CHECK(gray_encode(0) == 0);
	CHECK(gray_encode(1) == 1);
	CHECK(gray_encode(2) == 3);
	CHECK(gray_encode(3) == 2);
	CHECK(gray_encode(7) == 4);
	CHECK(gray_encode(0xffffffffu) == 0x80000000u);
	return 0;
}
